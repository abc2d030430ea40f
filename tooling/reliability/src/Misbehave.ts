/** Commands that start the misbehaving stdio MCP server of `misbehavingServer.ts`. */
import { fileURLToPath } from "node:url"

/** How a misbehaving server fails its resource and tool requests. */
export type Mode = "crash" | "hang" | "malformed" | "oversized" | "invalid" | "flood"

/** Every mode, in the order the suite injects them. */
export const modes: ReadonlyArray<Mode> = ["crash", "hang", "malformed", "oversized", "invalid", "flood"]

/** `node dist/misbehavingServer.js MODE ...` (the compiled script; `pnpm build` first). */
export const command = (
  mode: Mode,
  options: { readonly logFile?: string; readonly bytes?: number; readonly flood?: number } = {}
): { command: string; args: Array<string> } => ({
  command: process.execPath,
  args: [
    fileURLToPath(new URL("../dist/misbehavingServer.js", import.meta.url)),
    mode,
    ...(options.logFile !== undefined ? ["--log", options.logFile] : []),
    ...(options.bytes !== undefined ? ["--bytes", String(options.bytes)] : []),
    ...(options.flood !== undefined ? ["--flood", String(options.flood)] : [])
  ]
})
