/** Commands that start the stdio server of `limitsServer.ts`, and what it recorded. */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

/** The options of `limitsServer.ts` (see its header). */
export interface Options {
  readonly dir: string
  readonly initDelayMs?: number
  readonly ttlMs?: number
  readonly flood?: number
  readonly logFile?: string
}

/** `node dist/limitsServer.js --dir DIR ...` (the compiled script; `pnpm build` first). */
export const command = (options: Options): { command: string; args: Array<string> } => ({
  command: process.execPath,
  args: [
    fileURLToPath(new URL("../dist/limitsServer.js", import.meta.url)),
    "--dir",
    options.dir,
    ...(options.initDelayMs !== undefined ? ["--init-delay", String(options.initDelayMs)] : []),
    ...(options.ttlMs !== undefined ? ["--ttl", String(options.ttlMs)] : []),
    ...(options.flood !== undefined ? ["--flood", String(options.flood)] : []),
    ...(options.logFile !== undefined ? ["--log", options.logFile] : [])
  ]
})

/** The most processes of the directory seen alive, and seen initializing, at one time. */
export const peaks = (dir: string): { readonly alive: number; readonly init: number } => {
  let text = ""
  try {
    text = readFileSync(join(dir, "counts"), "utf8")
  } catch {
    text = ""
  }
  const peak = { alive: 0, init: 0 }
  for (const line of text.split("\n")) {
    const [kind, n] = line.split(" ")
    if (kind === "alive" || kind === "init") peak[kind] = Math.max(peak[kind], Number(n))
  }
  return peak
}

/** The lines of a request log (missing file = none). */
export const requests = (logFile: string): Array<string> => {
  try {
    return readFileSync(logFile, "utf8")
      .split("\n")
      .filter((line) => line !== "")
  } catch {
    return []
  }
}
