/**
 * Installs the packages the way a user does: `pnpm pack` for every public workspace package, then plain
 * `npm install` of the tarballs into an empty temporary project (registry dependencies come from the
 * npm registry, through the user's npm cache). From there it imports every entry point of every
 * package, type-checks and runs a small consumer with strict `tsc`, and runs the bins (`--help`,
 * `mcp-resources tools`, and an `initialize` exchange with the app-server over stdio).
 *
 * Assumes `pnpm build` ran (turbo's `test` depends on `^build`). Skips with a printed reason when the
 * npm registry cannot be reached.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, assert, beforeAll, describe, it } from "vitest"

const repo = fileURLToPath(new URL("../../../", import.meta.url))
const minutes = (n: number) => n * 60_000

interface Manifest {
  readonly name: string
  readonly version: string
  readonly private?: boolean
  readonly license?: string
  readonly engines?: { readonly node?: string }
  readonly repository?: { readonly directory?: string }
  readonly exports?: Record<string, unknown>
  readonly peerDependencies?: Record<string, string>
  readonly bin?: Record<string, string>
  readonly dependencies?: Record<string, string>
}

const readManifest = (dir: string): Manifest => JSON.parse(Fs.readFileSync(Path.join(dir, "package.json"), "utf8"))

/** Every workspace package that is published (not `private`), as its folder relative to the repository. */
const publicPackages = ["packages", "apps", "tooling"].flatMap((group) =>
  Fs.readdirSync(Path.join(repo, group))
    .map((name) => `${group}/${name}`)
    .filter(
      (dir) =>
        Fs.existsSync(Path.join(repo, dir, "package.json")) && readManifest(Path.join(repo, dir)).private !== true
    )
)

/** The exact pin of `name` in the workspace catalog. */
const catalogPin = (name: string): string => {
  const catalog = Fs.readFileSync(Path.join(repo, "pnpm-workspace.yaml"), "utf8")
  const line = catalog.split("\n").find((l) => l.trim().replace(/"/g, "").startsWith(`${name}:`))
  if (line === undefined) throw new Error(`${name} is not in the catalog of pnpm-workspace.yaml`)
  return line.slice(line.indexOf(":") + 1).trim()
}

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs a command to its end (at most `timeout` ms); never rejects. */
const run = (
  command: string,
  args: ReadonlyArray<string>,
  options: { cwd: string; timeout: number; env?: NodeJS.ProcessEnv }
) =>
  new Promise<Run>((resolve) => {
    execFile(
      command,
      args,
      { cwd: options.cwd, timeout: options.timeout, env: options.env ?? process.env, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : null, stdout, stderr })
    )
  })

const expectSuccess = (what: string, result: Run): Run => {
  if (result.code !== 0) assert.fail(`${what} exited ${result.code}:\n${result.stderr}\n${result.stdout}`)
  return result
}

/** Why the npm registry cannot be used from here, or `undefined` when it can. */
const registryProblem = async (): Promise<string | undefined> => {
  const effect = `effect@${catalogPin("effect")}`
  const result = await run("npm", ["view", effect, "version"], { cwd: repo, timeout: 30_000 })
  return result.code === 0
    ? undefined
    : `npm view ${effect} failed (${result.code}): ${result.stderr.trim().split("\n")[0]}`
}

const problem = await registryProblem()
if (problem !== undefined) console.warn(`install test skipped: the npm registry is unreachable: ${problem}`)

describe.skipIf(problem !== undefined)("the packed packages installed with npm in an empty project", () => {
  const work = Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-resources-install-"))
  const tarballs = Path.join(work, "tarballs")
  const project = Path.join(work, "project")
  const installed = (name: string) => Path.join(project, "node_modules", ...name.split("/"))
  const manifests = publicPackages.map((dir) => readManifest(Path.join(repo, dir)))
  // The bins write nothing outside the project: the per-user code cache goes here.
  const env = { ...process.env, XDG_CACHE_HOME: Path.join(work, "cache"), MCP_RESOURCES_LOG: "error" }

  beforeAll(async () => {
    // The repository's own pnpm (a root devDependency), whose `exports` only names its package.json.
    const pnpmPackage = createRequire(Path.join(repo, "package.json")).resolve("pnpm")
    const pnpm = Path.join(Path.dirname(pnpmPackage), readManifest(Path.dirname(pnpmPackage)).bin!.pnpm!)
    Fs.mkdirSync(tarballs)
    for (const dir of publicPackages) {
      if (!Fs.existsSync(Path.join(repo, dir, "dist"))) assert.fail(`${dir} is not built: run pnpm build first`)
      expectSuccess(
        `pnpm pack in ${dir}`,
        await run(process.execPath, [pnpm, "pack", "--pack-destination", tarballs], {
          cwd: Path.join(repo, dir),
          timeout: minutes(2)
        })
      )
    }
    const tarballOf = (name: string) =>
      `file:../tarballs/${name.replace(/^@/, "").replace("/", "-")}-${readManifest(Path.join(repo, publicPackages[manifests.findIndex((m) => m.name === name)]!)).version}.tgz`
    Fs.mkdirSync(project)
    Fs.writeFileSync(
      Path.join(project, "package.json"),
      JSON.stringify(
        {
          name: "install-test-consumer",
          private: true,
          type: "module",
          dependencies: {
            ...Object.fromEntries(manifests.map((m) => [m.name, tarballOf(m.name)])),
            // the frameworks of the adapters' entry points, as a user of those adapters installs them
            ...Object.fromEntries(
              manifests.flatMap((m) =>
                Object.keys(m.peerDependencies ?? {})
                  .filter((peer) => !peer.startsWith("@mcp-resources/") && peer !== "effect")
                  .map((peer) => [peer, catalogPin(peer)])
              )
            ),
            effect: catalogPin("effect")
          },
          devDependencies: { typescript: catalogPin("typescript"), "@types/node": catalogPin("@types/node") }
        },
        null,
        2
      )
    )
    expectSuccess(
      "npm install",
      await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], {
        cwd: project,
        timeout: minutes(10),
        // better-sqlite3 compiles from source where its prebuilt binary cannot be downloaded.
        env: { ...process.env, npm_config_nodedir: process.env.npm_config_nodedir ?? "/usr" }
      })
    )
  }, minutes(15))

  afterAll(() => Fs.rmSync(work, { recursive: true, force: true }))

  it("every tarball carries its README, LICENSE and engines, and depends on published versions only", () => {
    for (const manifest of manifests) {
      const dir = installed(manifest.name)
      const packed = readManifest(dir)
      assert.strictEqual(packed.license, "MIT", manifest.name)
      assert.isTrue(Fs.existsSync(Path.join(dir, "LICENSE")), `${manifest.name} has no LICENSE`)
      assert.isTrue(Fs.existsSync(Path.join(dir, "README.md")), `${manifest.name} has no README.md`)
      assert.strictEqual(packed.engines?.node, ">=20", manifest.name)
      assert.isString(packed.repository?.directory, manifest.name)
      for (const [dep, range] of Object.entries(packed.dependencies ?? {})) {
        assert.notMatch(range, /^(workspace|catalog):/, `${manifest.name} depends on ${dep}@${range}`)
      }
    }
  })

  it(
    "every entry point of every package imports from ESM, and internal modules are not exported",
    async () => {
      for (const manifest of manifests) {
        const dir = installed(manifest.name)
        const exportsMap = readManifest(dir).exports ?? {}
        const blocked = Object.keys(exportsMap).filter((key) => exportsMap[key] === null)
        const isBlocked = (subpath: string) =>
          blocked.some((key) => (key.endsWith("/*") ? subpath.startsWith(key.slice(0, -1)) : subpath === key))
        const specifiers: Array<string> = []
        for (const [key, target] of Object.entries(exportsMap)) {
          if (target === null || key === "./package.json") continue
          const { types, default: main } = target as { types: string; default: string }
          if (!key.includes("*")) {
            assert.isTrue(Fs.existsSync(Path.join(dir, main)), `${manifest.name} ${key} -> missing ${main}`)
            assert.isTrue(Fs.existsSync(Path.join(dir, types)), `${manifest.name} ${key} -> missing ${types}`)
            specifiers.push(key === "." ? manifest.name : `${manifest.name}${key.slice(1)}`)
            continue
          }
          // A `./*` pattern: every file it maps to is an entry point (unless a `null` entry hides it).
          const [prefix, suffix] = main.split("*") as [string, string]
          const files = Fs.readdirSync(Path.join(dir, prefix), { recursive: true, encoding: "utf8" })
          const matches = files.filter((file) => file.endsWith(suffix)).map((file) => file.slice(0, -suffix.length))
          assert.isNotEmpty(matches, `${manifest.name} ${key} matches no file`)
          for (const stem of matches.map((m) => m.split(Path.sep).join("/"))) {
            const subpath = key.replace("*", stem)
            if (isBlocked(subpath) || stem === "index") continue
            assert.isTrue(
              Fs.existsSync(Path.join(dir, types.replace("*", stem))),
              `${manifest.name} ${subpath} has no types`
            )
            specifiers.push(`${manifest.name}${subpath.slice(1)}`)
          }
        }
        const script = [
          ...specifiers.map((s) => `await import(${JSON.stringify(s)})`),
          `await import(${JSON.stringify(`${manifest.name}/internal/x`)}).then(() => { throw new Error("internal is exported") }, (e) => { if (e.code !== "ERR_PACKAGE_PATH_NOT_EXPORTED") throw e })`,
          `console.log(${specifiers.length})`
        ].join("\n")
        const result = expectSuccess(
          `importing ${manifest.name}`,
          await run(process.execPath, ["--input-type=module", "-e", script], { cwd: project, timeout: minutes(1), env })
        )
        assert.strictEqual(result.stdout.trim(), String(specifiers.length))
      }
    },
    minutes(5)
  )

  it(
    "a strict consumer type-checks against the installed declarations and runs",
    async () => {
      Fs.copyFileSync(
        fileURLToPath(new URL("../consumer/consumer.ts", import.meta.url)),
        Path.join(project, "consumer.ts")
      )
      Fs.writeFileSync(
        Path.join(project, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            target: "ES2022",
            module: "NodeNext",
            moduleResolution: "NodeNext",
            strict: true,
            exactOptionalPropertyTypes: true,
            skipLibCheck: false,
            types: ["node"],
            outDir: "out"
          },
          files: ["consumer.ts"]
        })
      )
      const tsc = Path.join(project, "node_modules", "typescript", "bin", "tsc")
      expectSuccess("tsc", await run(process.execPath, [tsc, "-p", "."], { cwd: project, timeout: minutes(3) }))
      const result = expectSuccess(
        "the consumer",
        await run(process.execPath, ["out/consumer.js"], { cwd: project, timeout: minutes(1), env })
      )
      assert.deepStrictEqual(JSON.parse(result.stdout), {
        tools: [
          "list_mcp_resources",
          "list_mcp_resource_templates",
          "read_mcp_resource",
          "mcp__example__example_search"
        ],
        listed: true,
        resources: 3,
        skills: true,
        seq: 1,
        params: true,
        options: Path.join(project, "data"),
        server: true,
        client: true
      })
    },
    minutes(5)
  )

  it(
    "the bins print their usage, list the tools of an empty config and start from the project",
    async () => {
      const appServer = manifests.find((m) => m.name === "@mcp-resources/app-server")!
      assert.deepStrictEqual(Object.keys(appServer.bin ?? {}).sort(), ["mcp-resources", "mcp-resources-app-server"])
      const help = expectSuccess(
        "mcp-resources-app-server --help",
        await run("npx", ["--no", "--", "mcp-resources-app-server", "--help"], {
          cwd: project,
          timeout: minutes(1),
          env
        })
      )
      assert.match(help.stdout, /^usage: mcp-resources-app-server /)
      const cliHelp = expectSuccess(
        "mcp-resources --help",
        await run("npx", ["--no", "--", "mcp-resources", "--help"], { cwd: project, timeout: minutes(1), env })
      )
      assert.match(cliHelp.stdout, /^usage: mcp-resources <command>/)
      const tools = expectSuccess(
        "mcp-resources tools",
        await run(Path.join(project, "node_modules", ".bin", "mcp-resources"), ["tools", "--json"], {
          cwd: project,
          timeout: minutes(1),
          env
        })
      )
      assert.strictEqual(tools.stdout, "[]\n")
    },
    minutes(3)
  )

  it(
    "the app-server bin answers initialize over stdio, opens its SQLite store and exits 0 at the end of input",
    async () => {
      Fs.writeFileSync(Path.join(project, "empty.json"), "{}")
      const bin = Path.join(project, "node_modules", ".bin", "mcp-resources-app-server")
      const child: ChildProcess = spawn(bin, ["--config", "empty.json", "--data-dir", "data"], { cwd: project, env })
      try {
        const lines = collectLines(child)
        const send = (message: object) => child.stdin!.write(`${JSON.stringify(message)}\n`)
        send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { clientInfo: { name: "install-test" } } })
        const initialized = JSON.parse(await lines.next())
        assert.deepStrictEqual(initialized, {
          jsonrpc: "2.0",
          id: 1,
          result: {
            ...initialized.result,
            serverInfo: {
              name: "mcp-resources-app-server",
              version: readManifest(installed("@mcp-resources/app-server")).version
            },
            protocolVersion: 1
          }
        })
        send({ jsonrpc: "2.0", id: 2, method: "thread/start", params: {} })
        const started = JSON.parse(await lines.next())
        assert.strictEqual(started.id, 2)
        assert.isString(started.result.thread.id)
        child.stdin!.end()
        assert.strictEqual(await exitCode(child), 0)
        assert.isTrue(Fs.existsSync(Path.join(project, "data", "state.sqlite")))
      } finally {
        child.kill()
      }
    },
    minutes(2)
  )

  /** Type-checks `consumer/adapters.ts` in the project with strict `tsc` and runs it; its JSON line. */
  const runAdaptersFlow = async (): Promise<unknown> => {
    Fs.copyFileSync(
      fileURLToPath(new URL("../consumer/adapters.ts", import.meta.url)),
      Path.join(project, "adapters.ts")
    )
    Fs.writeFileSync(
      Path.join(project, "tsconfig.adapters.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          exactOptionalPropertyTypes: true,
          skipLibCheck: true,
          types: ["node"],
          outDir: "out"
        },
        files: ["adapters.ts"]
      })
    )
    const tsc = Path.join(project, "node_modules", "typescript", "bin", "tsc")
    expectSuccess(
      "tsc (adapters)",
      await run(process.execPath, [tsc, "-p", "tsconfig.adapters.json"], { cwd: project, timeout: minutes(3) })
    )
    const result = expectSuccess(
      "the adapters' flow",
      await run(process.execPath, ["out/adapters.js"], { cwd: project, timeout: minutes(1), env })
    )
    return JSON.parse(result.stdout)
  }

  /** What the adapters' flow prints when every framework reads the note, our message and the image. */
  const adaptersFlow = {
    aiSdk: { answer: "done", note: true, message: true, image: true },
    openAiAgents: { answer: "done", note: true, message: true, image: true },
    langChain: { answer: "done", note: true, message: true, image: true },
    // started and completed for the two reads of each framework that got past argument handling
    lifecycle: 12
  }

  /** The frameworks the adapters declare as peers, with their ranges. */
  const frameworkPeers = () =>
    Object.entries(readManifest(installed("@mcp-resources/adapters")).peerDependencies ?? {}).filter(
      ([peer]) => !peer.startsWith("@mcp-resources/")
    )

  it(
    "the adapters' example flow type-checks and runs with each framework at its pin",
    async () => {
      for (const [peer] of frameworkPeers()) {
        assert.strictEqual(readManifest(installed(peer)).version, catalogPin(peer), peer)
      }
      assert.deepStrictEqual(await runAdaptersFlow(), adaptersFlow)
    },
    minutes(4)
  )

  it(
    "the adapters' example flow type-checks and runs with each framework at the lowest version of its peer range",
    async () => {
      // the lowest version a range admits: its first version (`^6.0.0`, `>=0.14.0 <0.15.0`)
      const lowest = frameworkPeers().map(([peer, range]) => {
        const version = /\d+\.\d+\.\d+/.exec(range)?.[0]
        if (version === undefined) assert.fail(`${peer}@${range}: no lowest version`)
        return [peer, version] as const
      })
      expectSuccess(
        "npm install (lowest peers)",
        await run(
          "npm",
          [
            "install",
            "--prefer-offline",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            ...lowest.map(([peer, version]) => `${peer}@${version}`)
          ],
          {
            cwd: project,
            timeout: minutes(5),
            env: { ...process.env, npm_config_nodedir: process.env.npm_config_nodedir ?? "/usr" }
          }
        )
      )
      for (const [peer, version] of lowest) assert.strictEqual(readManifest(installed(peer)).version, version, peer)
      assert.deepStrictEqual(await runAdaptersFlow(), adaptersFlow)
    },
    minutes(6)
  )

  it("the bins start from the code cache shipped in the package (no per-user cache is written)", () => {
    // Only true under the Node version that built the package, which is the case in this repository.
    assert.isFalse(Fs.existsSync(Path.join(work, "cache", "mcp-resources")))
  })
})

/** The child's stdout lines, one per `next()`; each wait fails after 60 s or when the child exits first. */
const collectLines = (child: ChildProcess) => {
  const lines: Array<string> = []
  const waiting: Array<(line: string) => void> = []
  let buffer = ""
  let stderr = ""
  let ended = false
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8")
  })
  child.stdout!.on("data", (chunk: Buffer) => {
    buffer += chunk.toString("utf8")
    for (let i = buffer.indexOf("\n"); i >= 0; i = buffer.indexOf("\n")) {
      const line = buffer.slice(0, i)
      buffer = buffer.slice(i + 1)
      const waiter = waiting.shift()
      if (waiter === undefined) lines.push(line)
      else waiter(line)
    }
  })
  child.stdout!.on("end", () => {
    ended = true
  })
  return {
    next: () =>
      new Promise<string>((resolve, reject) => {
        const line = lines.shift()
        if (line !== undefined) return resolve(line)
        if (ended) return reject(new Error(`the app-server's output ended; stderr:\n${stderr}`))
        const timer = setTimeout(
          () => reject(new Error(`no line from the app-server in 60 s; stderr:\n${stderr}`)),
          60_000
        )
        const onExit = () => reject(new Error(`the app-server exited; stderr:\n${stderr}`))
        child.once("exit", onExit)
        waiting.push((l) => {
          clearTimeout(timer)
          child.off("exit", onExit)
          resolve(l)
        })
      })
  }
}

/** The child's exit code; fails after 30 s. */
const exitCode = (child: ChildProcess) =>
  new Promise<number | null>((resolve, reject) => {
    if (child.exitCode !== null) return resolve(child.exitCode)
    const timer = setTimeout(() => reject(new Error("the app-server did not exit within 30 s")), 30_000)
    child.once("exit", (code) => {
      clearTimeout(timer)
      resolve(code)
    })
  })
