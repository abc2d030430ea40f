/** The load balancer config of docs/deploying.md is one HAProxy accepts (`haproxy -c -f`). */
import { execFileSync } from "node:child_process"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"

const config = fileURLToPath(new URL("../../../docs/deploying/haproxy.cfg", import.meta.url))

/** `haproxy` on PATH or in /usr/sbin (Debian's package; `.ci/run` installs it when missing). */
const haproxy = [...(process.env.PATH ?? "").split(":").filter((d) => d !== ""), "/usr/sbin"]
  .map((dir) => join(dir, "haproxy"))
  .find((file) => existsSync(file))
if (haproxy === undefined) console.warn("the HAProxy config check skipped: no haproxy binary (Debian package haproxy)")

describe.skipIf(haproxy === undefined)("docs/deploying/haproxy.cfg", () => {
  it("haproxy -c accepts it", () => {
    const output = execFileSync(haproxy!, ["-c", "-f", config], { encoding: "utf8", timeout: 30_000 })
    assert.include(output, "Configuration file is valid")
  })
})
