/** The TokenStore contract over the layers of this package: the file (`layerFile`, `layerDataDir`) and memory. */
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { Effect } from "effect"
import { TokenStore } from "../src/index.js"
import { tokenStoreSuite } from "./TokenStoreSuite.js"

const tempDir = Effect.acquireRelease(
  Effect.sync(() => NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "token-store-suite-"))),
  (dir) => Effect.sync(() => NodeFs.rmSync(dir, { recursive: true, force: true }))
)

tokenStoreSuite(
  "file",
  Effect.map(tempDir, (dir) => {
    // in a directory that does not exist yet: the store creates it
    const file = NodePath.join(dir, "data", TokenStore.fileName)
    const rewrite = (change: (text: string) => string) =>
      Effect.sync(() => NodeFs.writeFileSync(file, change(NodeFs.readFileSync(file, "utf8"))))
    return {
      open: () => TokenStore.layerDataDir(NodePath.dirname(file)),
      location: file,
      raw: Effect.sync(() => NodeFs.readFileSync(file, "utf8")),
      corruptions: {
        // cut off as a full disk or an editor might leave it: not JSON, the secrets before the cut still in it
        truncated: rewrite((text) => text.slice(0, Math.floor(text.length * 0.8))),
        // JSON, but not a token file this version reads
        "another version": rewrite((text) => text.replace('"version": 1', '"version": 2')),
        "an entry of the wrong shape": rewrite((text) => text.replace('"token_type": "Bearer"', '"token_type": 7'))
      },
      unreadable: Effect.sync(() => {
        NodeFs.rmSync(file)
        NodeFs.mkdirSync(file)
      }),
      fileMode: Effect.sync(() => NodeFs.statSync(file).mode)
    }
  }),
  { shared: true }
)

tokenStoreSuite("memory", Effect.succeed({ open: () => TokenStore.layerMemory }), {
  shared: "each layerMemory is a store of its own, in its process",
  noStorage: "layerMemory stores nothing outside the process",
  noFile: "layerMemory writes no file"
})
