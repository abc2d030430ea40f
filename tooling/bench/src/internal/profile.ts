/**
 * A CPU profile of a task, summarised as its top functions by self time: the "profile line" a missed
 * target reports. Uses the V8 sampling profiler through `node:inspector`.
 */
import * as Fs from "node:fs"
import * as Inspector from "node:inspector"
import * as Path from "node:path"

interface ProfileNode {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
  readonly hitCount?: number
}

export interface Profile {
  /** Microseconds on the monotonic clock (`process.hrtime`'s clock on Linux). */
  readonly startTime?: number
  readonly endTime?: number
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly samples?: ReadonlyArray<number>
  readonly timeDeltas?: ReadonlyArray<number>
}

const post = <A>(session: Inspector.Session, method: string, params?: object): Promise<A> =>
  new Promise((resolve, reject) =>
    session.post(method, params ?? {}, (error, result) => (error ? reject(error) : resolve(result as A)))
  )

/** Where a function lives, shortened: `package/file.js:line`. */
const where = (url: string, line: number): string => {
  if (url === "") return ""
  const path = url.replace(/^file:\/\//, "")
  const pnpm = path.match(/node_modules\/\.pnpm\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/)
  if (pnpm) return `${pnpm[1]}/${Path.basename(pnpm[2]!)}:${line + 1}`
  const ws = path.match(/\/(packages|apps|tooling)\/([^/]+)\/(.*)$/)
  if (ws) return `${ws[2]}/${Path.basename(ws[3]!)}:${line + 1}`
  return `${Path.basename(path)}:${line + 1}`
}

/** Microseconds on the clock of V8's CPU profiles (the monotonic clock; the same on Linux). */
export const profileClockMicros = (): number => Number(process.hrtime.bigint() / 1000n)

/** A time window of a profile, in microseconds of `profileClockMicros`. */
export interface Window {
  readonly since: number
  readonly until: number
}

/**
 * Self time by package and the top `top` functions by self time of a V8 CPU profile; with `window`,
 * only the samples taken within it count. A window that does not start inside the profile's time
 * span (another clock) counts every sample, and the summary says so.
 */
export const summarize = (profile: Profile, top = 6, window?: Window): string => {
  const byNode = new Map<number, ProfileNode>(profile.nodes.map((n) => [n.id, n]))
  const self = new Map<string, number>()
  const byPackage = new Map<string, number>()
  let total = 0
  const samples = profile.samples ?? []
  const deltas = profile.timeDeltas ?? []
  const { startTime, endTime } = profile
  const windowed =
    window !== undefined &&
    startTime !== undefined &&
    endTime !== undefined &&
    window.since >= startTime &&
    window.since < Math.min(endTime, window.until)
  let at = startTime ?? 0
  for (let i = 0; i < samples.length; i++) {
    const dt = deltas[i] ?? 0
    at += dt
    if (windowed && (at < window.since || at > window.until)) continue
    const node = byNode.get(samples[i]!)
    if (node === undefined) continue
    const frame = node.callFrame
    const key = `${frame.functionName || "(anonymous)"} ${where(frame.url, frame.lineNumber)}`.trim()
    if (frame.functionName === "(idle)" || frame.functionName === "(program)") continue
    self.set(key, (self.get(key) ?? 0) + dt)
    const pkg =
      frame.url === ""
        ? frame.functionName.startsWith("(")
          ? frame.functionName
          : "(native)"
        : where(frame.url, 0).split("/").slice(0, -1).join("/") || "node"
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + dt)
    total += dt
  }
  const share = ([key, t]: [string, number]) => `${((100 * t) / total).toFixed(0)}% ${key}`
  const packages = [...byPackage.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(share)
    .join(", ")
  const functions = [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(share)
    .join("; ")
  const span =
    window === undefined
      ? ""
      : windowed
        ? `${((Math.min(endTime, window.until) - window.since) / 1000).toFixed(0)} ms window; `
        : "whole profile (the window is outside it); "
  return `${span}self time by package: ${packages} | top functions: ${functions}`
}

/** Summarises a `.cpuprofile` file written by `node --cpu-prof` (within `window`, as `summarize`). */
export const summarizeFile = (file: string, top = 6, window?: Window): string =>
  summarize(JSON.parse(Fs.readFileSync(file, "utf8")) as Profile, top, window)

/** The newest `.cpuprofile` in a directory (what `node --cpu-prof --cpu-prof-dir DIR` wrote). */
export const newestProfile = (dir: string): string | undefined =>
  Fs.readdirSync(dir)
    .filter((f) => f.endsWith(".cpuprofile"))
    .map((f) => Path.join(dir, f))
    .sort((a, b) => Fs.statSync(b).mtimeMs - Fs.statSync(a).mtimeMs)[0]

/** Runs `fn` `iterations` times under the profiler; returns self time by package and the top `top` functions. */
export const profileTop = async (fn: () => unknown, iterations: number, top = 6): Promise<string> => {
  const session = new Inspector.Session()
  session.connect()
  try {
    await post(session, "Profiler.enable")
    await post(session, "Profiler.setSamplingInterval", { interval: 100 })
    await post(session, "Profiler.start")
    for (let i = 0; i < iterations; i++) await fn()
    const { profile } = await post<{ profile: Profile }>(session, "Profiler.stop")
    return summarize(profile, top)
  } finally {
    await post(session, "Profiler.disable").catch(() => undefined)
    session.disconnect()
  }
}

/** Packages whose scripts appear in a profile (loaded and run), by number of distinct files, most first. */
export const loadedPackages = (file: string, top = 8): string => {
  const profile = JSON.parse(Fs.readFileSync(file, "utf8")) as Profile
  const files = new Map<string, Set<string>>()
  for (const node of profile.nodes) {
    const url = node.callFrame.url
    if (url === "" || url.startsWith("node:")) continue
    const pkg = where(url, 0).split("/").slice(0, -1).join("/") || "app"
    const set = files.get(pkg) ?? new Set<string>()
    set.add(url)
    files.set(pkg, set)
  }
  return [...files.entries()]
    .sort((a, b) => b[1].size - a[1].size)
    .slice(0, top)
    .map(([pkg, set]) => `${pkg} ${set.size}`)
    .join(", ")
}
