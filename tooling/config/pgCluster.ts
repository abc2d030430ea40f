/**
 * A throw-away PostgreSQL cluster for tests: `initdb` into a fresh directory, `pg_ctl start` on a free
 * loopback port, and a `stop()` that always removes everything. Plain Node (no Effect) so that vitest
 * `globalSetup` files of any package can use it.
 */
import { execFile, execFileSync } from "node:child_process"
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"

/** A running cluster: `url` reaches database `postgres` as superuser `postgres` (trust auth, no password). */
export interface PgCluster {
  readonly url: string
  readonly stop: () => Promise<void>
}

/** Why no cluster could be started (no server binaries, no usable user); tests print it and skip. */
export interface PgSkipped {
  readonly skipped: string
}

const COMMAND_TIMEOUT_MS = 60_000
const runuser = "/usr/sbin/runuser"

const run = (file: string, args: ReadonlyArray<string>): Promise<string> =>
  new Promise((resolve, reject) => {
    execFile(file, [...args], { timeout: COMMAND_TIMEOUT_MS, encoding: "utf8" }, (error, stdout, stderr) => {
      if (error) {
        reject(new Error(`${file} ${args.join(" ")} failed: ${error.message}\n${stderr}`))
      } else {
        resolve(stdout)
      }
    })
  })

/** The directory holding `initdb` and `pg_ctl`: `PG_BIN_DIR`, then the newest `/usr/lib/postgresql/N/bin`, then PATH. */
export const findPgBinDir = (): string | undefined => {
  const hasTools = (dir: string) => existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl"))
  const fromEnv = process.env.PG_BIN_DIR
  if (fromEnv !== undefined && fromEnv !== "") return hasTools(fromEnv) ? fromEnv : undefined
  const root = "/usr/lib/postgresql"
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a))
    for (const v of versions) {
      const dir = join(root, v, "bin")
      if (hasTools(dir)) return dir
    }
  }
  for (const dir of (process.env.PATH ?? "").split(":")) {
    if (dir !== "" && hasTools(dir)) return dir
  }
  return undefined
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })

/** Every directory from `path` up to `/` grants others search (x) permission. */
const othersCanTraverse = (path: string): boolean => {
  for (let current = resolve(path); ; current = dirname(current)) {
    if ((statSync(current).mode & 0o001) === 0) return false
    if (dirname(current) === current) return true
  }
}

const isRoot = (): boolean => typeof process.getuid === "function" && process.getuid() === 0

/** Looks up a system user's uid and gid with `id`; undefined when the user does not exist. */
const userIds = async (user: string): Promise<{ uid: number; gid: number } | undefined> => {
  try {
    const uid = Number((await run("id", ["-u", user])).trim())
    const gid = Number((await run("id", ["-g", user])).trim())
    return Number.isInteger(uid) && Number.isInteger(gid) ? { uid, gid } : undefined
  } catch {
    return undefined
  }
}

/**
 * Starts a throw-away cluster, or explains why it cannot. As root the server runs as user `postgres`
 * (root may not run `initdb`); otherwise as the current user. The data directory lives under a fresh
 * directory in the system temp dir and is removed by `stop()`, which also runs when start fails half-way
 * (the error is then rethrown: with binaries present, a failed start is a failure, not a skip).
 */
export const startPgCluster = async (): Promise<PgCluster | PgSkipped> => {
  const bin = findPgBinDir()
  if (bin === undefined) {
    return { skipped: "no PostgreSQL server binaries (set PG_BIN_DIR, or install initdb/pg_ctl)" }
  }
  let owner: { uid: number; gid: number } | undefined
  if (isRoot()) {
    owner = await userIds("postgres")
    if (owner === undefined || !existsSync(runuser)) {
      return { skipped: "running as root without a `postgres` user and runuser: initdb refuses to run as root" }
    }
  }
  const command = (file: string, args: ReadonlyArray<string>): [string, Array<string>] =>
    owner === undefined ? [file, [...args]] : [runuser, ["-u", "postgres", "--", file, ...args]]
  const asUser = (file: string, args: ReadonlyArray<string>) => run(...command(file, args))

  // mkdtemp makes a 0700 directory; user `postgres` must traverse it and all its parents.
  const base = owner === undefined || othersCanTraverse(tmpdir()) ? tmpdir() : "/tmp"
  const dir = mkdtempSync(join(base, "pg-cluster-"))
  chmodSync(dir, 0o755)
  if (owner !== undefined) chownSync(dir, owner.uid, owner.gid)
  const data = join(dir, "data")
  const log = join(dir, "log")
  const pgCtl = join(bin, "pg_ctl")
  let started = false

  const stopArgs = ["-D", data, "-m", "immediate", "-w", "-t", "30", "stop"]
  // Last resort when the test runner exits without calling stop() (Ctrl-C): exit handlers must be synchronous.
  const stopAtExit = () => {
    try {
      if (started) execFileSync(...command(pgCtl, stopArgs), { timeout: COMMAND_TIMEOUT_MS, stdio: "ignore" })
    } catch {
      // Nothing more can be done while the process exits.
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
  process.once("exit", stopAtExit)

  const stop = async (): Promise<void> => {
    process.off("exit", stopAtExit)
    try {
      if (started) await asUser(pgCtl, stopArgs)
    } catch {
      // The server is gone already; removing the directory is all that is left.
    } finally {
      started = false
      rmSync(dir, { recursive: true, force: true })
    }
  }

  try {
    await asUser(join(bin, "initdb"), ["-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"])
    const port = await freePort()
    // `-l log` matters: without it the server keeps the parent's output pipe open and execFile never returns.
    // fsync is off because the cluster is thrown away; the code under test still asks for durable commits.
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`
    started = true
    await asUser(pgCtl, ["-D", data, "-l", log, "-w", "-t", "60", "start", "-o", options])
    return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, stop }
  } catch (error) {
    // Binaries exist, so a failed start is a real failure, not a reason to skip.
    await stop()
    throw error
  }
}
