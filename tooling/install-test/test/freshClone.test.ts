/**
 * The repository as a new user gets it: a fresh clone installs without a warning (the bins of a
 * workspace package are linked before anything is built, so they must exist then), and `pnpm pack` of
 * a package nobody has built yet builds it first (`prepack`), so that no tarball lacks `dist/`.
 *
 * The clone is of the committed `HEAD` (what is not committed is not in it). It installs offline from
 * pnpm's store (the checkout this runs in was installed from it) and without install scripts, which
 * have nothing to do with linking bins; it skips, saying why, where that cannot work.
 */
import { execFile } from "node:child_process"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, assert, beforeAll, describe, it } from "vitest"

const repo = fileURLToPath(new URL("../../../", import.meta.url))
const minutes = (n: number) => n * 60_000

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const run = (command: string, args: ReadonlyArray<string>, cwd: string, timeout: number) =>
  new Promise<Run>((resolve) => {
    execFile(command, args, { cwd, timeout, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : null, stdout, stderr })
    )
  })

interface Manifest {
  readonly name: string
  readonly private?: boolean
  readonly version: string
  readonly scripts?: Record<string, string>
  readonly bin?: Record<string, string>
}

const manifest = (dir: string): Manifest => JSON.parse(Fs.readFileSync(Path.join(dir, "package.json"), "utf8"))

/** Every workspace package folder, relative to the repository. */
const workspacePackages = ["packages", "apps", "tooling"].flatMap((group) =>
  Fs.readdirSync(Path.join(repo, group))
    .map((name) => `${group}/${name}`)
    .filter((dir) => Fs.existsSync(Path.join(repo, dir, "package.json")))
)

/** The repository's own pnpm (a root devDependency). */
const pnpm = (() => {
  const pkg = createRequire(Path.join(repo, "package.json")).resolve("pnpm")
  return Path.join(Path.dirname(pkg), manifest(Path.dirname(pkg)).bin!.pnpm!)
})()

const gitProblem = async (): Promise<string | undefined> => {
  const inside = await run("git", ["rev-parse", "--is-inside-work-tree"], repo, 30_000)
  return inside.code === 0 ? undefined : `not a git checkout: ${inside.stderr.trim()}`
}

describe("every package's bins and packing", () => {
  it("every bin of a workspace package is a committed file, not a build output", async () => {
    const tracked = new Set(
      (await run("git", ["ls-files"], repo, 60_000)).stdout.split("\n").filter((line) => line !== "")
    )
    const bins = workspacePackages.flatMap((dir) =>
      Object.entries(manifest(Path.join(repo, dir)).bin ?? {}).map(([name, file]) => ({
        name,
        file: Path.posix.join(dir, file)
      }))
    )
    assert.isNotEmpty(bins)
    for (const bin of bins)
      assert.isTrue(tracked.has(bin.file), `bin ${bin.name} is ${bin.file}, which is not committed`)
  })

  it("every public package builds before it is packed", () => {
    for (const dir of workspacePackages) {
      const m = manifest(Path.join(repo, dir))
      if (m.private === true) continue
      assert.strictEqual(m.scripts?.prepack, "pnpm run build", `${m.name} has no prepack that builds it`)
      assert.isString(m.scripts?.build, `${m.name} has no build`)
    }
  })
})

const problem = await gitProblem()
if (problem !== undefined) console.warn(`fresh clone test skipped: ${problem}`)

describe.skipIf(problem !== undefined)("a fresh clone", () => {
  const work = Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-resources-clone-"))
  const clone = Path.join(work, "repo")
  let install: Run | undefined

  beforeAll(async () => {
    const cloned = await run("git", ["clone", "--quiet", "--no-hardlinks", repo, clone], work, minutes(2))
    if (cloned.code !== 0) assert.fail(`git clone failed: ${cloned.stderr}`)
    install = await run(
      process.execPath,
      [pnpm, "install", "--frozen-lockfile", "--offline", "--ignore-scripts"],
      clone,
      minutes(5)
    )
  }, minutes(8))

  afterAll(() => Fs.rmSync(work, { recursive: true, force: true }))

  it("installs with the frozen lockfile and prints no warning", (context) => {
    const result = install!
    if (result.code !== 0 && /ERR_PNPM_NO_OFFLINE|not found in the store/i.test(result.stdout + result.stderr)) {
      console.warn(`fresh clone install skipped: pnpm's store lacks a package: ${result.stderr.split("\n")[0]}`)
      return context.skip()
    }
    assert.strictEqual(result.code, 0, result.stdout + result.stderr)
    const warnings = `${result.stdout}\n${result.stderr}`.split("\n").filter((line) => /\bWARN\b/.test(line))
    assert.deepStrictEqual(warnings, [])
  })

  it(
    "pnpm pack of a package nobody built builds it first: the tarball has dist/",
    async (context) => {
      if (install?.code !== 0) return context.skip()
      const dir = Path.join(clone, "packages", "protocol")
      assert.isFalse(Fs.existsSync(Path.join(dir, "dist")))
      const out = Path.join(work, "tarballs")
      const packed = await run(process.execPath, [pnpm, "pack", "--pack-destination", out], dir, minutes(5))
      assert.strictEqual(packed.code, 0, packed.stdout + packed.stderr)
      const tarball = Path.join(out, `mcp-resources-protocol-${manifest(dir).version}.tgz`)
      const listed = await run("tar", ["-tzf", tarball], work, minutes(1))
      const files = listed.stdout.split("\n")
      assert.include(files, "package/dist/index.js")
      assert.include(files, "package/dist/index.d.ts")
    },
    minutes(6)
  )
})
