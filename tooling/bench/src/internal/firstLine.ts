/**
 * Start-up timing: spawn a process and measure until its first stdout line. The app-server itself is
 * driven with the typed client (`@mcp-resources/app-server-client`); this measurement stays a bare
 * spawn and one line read with the shared line framer, so the client adds nothing to what is timed.
 */
import { spawn } from "node:child_process"
import { LineSplitter } from "@mcp-resources/protocol/LineFramer"

/**
 * Spawns a process and resolves with the milliseconds until its first stdout line (which must pass
 * `expect`), then waits for its exit.
 */
export const timeToFirstLine = (
  command: string,
  args: ReadonlyArray<string>,
  input?: string,
  expect: (line: string) => boolean = () => true
): Promise<number> =>
  new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(command, [...args], { stdio: ["pipe", "pipe", "pipe"] })
    let elapsed: number | undefined
    let stderr = ""
    let unexpected: string | undefined
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8")
    })
    const splitter = new LineSplitter(64 * 1024 * 1024)
    const onData = (chunk: Buffer) => {
      const first = splitter.push(chunk)[0]
      if (first === undefined) return
      elapsed = performance.now() - started
      child.stdout.off("data", onData)
      child.stdout.resume()
      if (first._tag !== "line" || !expect(first.text)) unexpected = first._tag === "line" ? first.text : "(oversize)"
      child.stdin.end()
    }
    child.stdout.on("data", onData)
    if (input !== undefined) child.stdin.write(input)
    else child.stdin.end()
    child.once("error", reject)
    child.once("exit", (code) => {
      if (elapsed === undefined)
        reject(new Error(`${command} exited (${code}) before printing a line: ${stderr.slice(-500)}`))
      else if (unexpected !== undefined) reject(new Error(`unexpected first line: ${unexpected.slice(0, 300)}`))
      else resolve(elapsed)
    })
  })
