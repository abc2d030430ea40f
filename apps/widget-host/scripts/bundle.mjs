// Bundles the two browser entry points (the host page and the sandbox proxy) into dist/bundle/.
// The app-server client's Node-only modules (child processes, `ws`) are replaced by empty modules:
// the page uses the browser transport, which needs neither.
import { build } from "esbuild"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const nodeOnly = {
  name: "node-only",
  setup(b) {
    b.onResolve({ filter: /^(node:.*|ws|smol-toml)$/ }, (args) => ({ path: args.path, namespace: "node-only" }))
    b.onLoad({ filter: /.*/, namespace: "node-only" }, () => ({ contents: "module.exports = {}", loader: "js" }))
  }
}
await build({
  absWorkingDir: root,
  entryPoints: { host: "src/page/host.ts", sandbox: "src/page/sandbox.ts" },
  outdir: "dist/bundle",
  bundle: true,
  format: "esm",
  platform: "browser",
  target: "es2022",
  minify: true,
  legalComments: "none",
  logLevel: "warning",
  plugins: [nodeOnly]
})
