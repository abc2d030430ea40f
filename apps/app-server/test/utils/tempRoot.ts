/**
 * The run's one temporary directory (a vitest global setup): every `tempDir()` of the app-server tests
 * (data dirs, config files, logs) is made inside it, and the teardown removes it whole, so a run leaves
 * nothing in the system's temporary directory however many app-servers it started.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

declare module "vitest" {
  /** Provided by this global setup. */
  interface ProvidedContext {
    tempRoot: string
  }
}

/** What this setup uses of vitest's project. */
interface SetupProject {
  readonly provide: (key: "tempRoot", value: string) => void
}

export default function setup(project: SetupProject): () => void {
  const root = mkdtempSync(join(tmpdir(), "app-server-tests-"))
  project.provide("tempRoot", root)
  return () => rmSync(root, { recursive: true, force: true, maxRetries: 3 })
}
