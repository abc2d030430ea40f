/**
 * Runs the bundled build (`app.cjs`, written next to this file by `scripts/bundle.mjs`) with V8's code
 * cache, so that a start does not parse and compile a megabyte of JavaScript again. The cache shipped
 * in the package was made by the Node version that built it; under any other version (or other V8
 * flags) it is rejected, and the first start writes one for this Node under the user's cache directory.
 */
import * as NodeCrypto from "node:crypto"
import * as NodeFs from "node:fs"
import Module from "node:module"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import * as NodeVm from "node:vm"

/** What `app.cjs` exports: each program's module, evaluated on first call. */
interface Bundle {
  readonly cli: () => Promise<unknown>
  readonly server: () => Promise<unknown>
}

const dir = NodePath.dirname(fileURLToPath(import.meta.url))

/** Reads a file, or `undefined` when it cannot be read. */
const readOptional = (file: string): Buffer | undefined => {
  try {
    return NodeFs.readFileSync(file)
  } catch {
    return undefined
  }
}

/**
 * The per-user cache file for this bundle, this Node and this program, or `undefined` without a home.
 * The bundle is told apart by its size and modification time (a new install or build changes them):
 * hashing a megabyte of source would cost more at every start than the cache saves on some. V8 refuses
 * a cache made under other flags, so Node's own options are part of the name too (a start with
 * `--max-old-space-size` does not leave a cache that every plain start then refuses and rewrites).
 */
const userCacheFile = (program: keyof Bundle, file: string): string | undefined => {
  const base =
    process.env.XDG_CACHE_HOME ?? (NodeOs.homedir() === "" ? undefined : NodePath.join(NodeOs.homedir(), ".cache"))
  if (base === undefined) return undefined
  const stat = NodeFs.statSync(file)
  const hash = NodeCrypto.createHash("sha256")
    .update(`${file}\0${stat.size}\0${stat.mtimeMs}\0${process.execArgv.join("\0")}`)
    .digest("hex")
    .slice(0, 16)
  return NodePath.join(base, "mcp-resources", `${program}-${process.versions.v8}-${hash}.cache`)
}

/** Writes `data` to `file` atomically (a temporary file renamed over it); failures are ignored. */
const writeQuietly = (file: string, data: Buffer): void => {
  try {
    NodeFs.mkdirSync(NodePath.dirname(file), { recursive: true })
    const temporary = `${file}.${process.pid}.tmp`
    NodeFs.writeFileSync(temporary, data)
    NodeFs.renameSync(temporary, file)
  } catch {
    // A cache is an optimisation: a read-only or missing directory only costs the next start time.
  }
}

/** Evaluates `app.cjs` and starts `program`. */
export const run = (program: keyof Bundle): void => {
  const file = NodePath.join(dir, "app.cjs")
  const source = NodeFs.readFileSync(file, "utf8")
  const wrapped = Module.wrap(source)
  // `scripts/bundle.mjs` sets this to make the shipped cache from a real start.
  const out = process.env.MCP_RESOURCES_CODE_CACHE_OUT
  const shipped = NodePath.join(dir, `${program}-${process.versions.v8}.cache`)
  // A per-user cache exists only where the shipped one was missing or refused: it goes first.
  const user = out === undefined ? userCacheFile(program, file) : undefined
  const cacheFile = [user, shipped].find((candidate) => candidate !== undefined && NodeFs.existsSync(candidate))
  const cachedData = out === undefined && cacheFile !== undefined ? readOptional(cacheFile) : undefined
  const script = new NodeVm.Script(
    wrapped,
    cachedData === undefined ? { filename: file } : { filename: file, cachedData }
  )
  if (cachedData === undefined || script.cachedDataRejected === true) {
    // Written after the run, so the cache also holds every function compiled while it ran.
    const target = out ?? user
    if (target !== undefined) process.once("exit", () => writeQuietly(target, script.createCachedData()))
  }
  const module = { exports: {} as Bundle }
  const wrapper = script.runInThisContext() as (
    exports: unknown,
    require: NodeJS.Require,
    module: unknown,
    filename: string,
    dirname: string
  ) => void
  wrapper(module.exports, Module.createRequire(file), module, file, dir)
  module.exports[program]().catch((error: unknown) => {
    process.stderr.write(`${String(error)}\n`)
    process.exitCode = 1
  })
}
