/**
 * The resource rules' matcher and the form of a URI they judge (docs/policy.md): normalization per
 * RFC 3986 section 6, URIs refused unjudged, and a matcher whose steps grow linearly with the URI
 * whatever the pattern (checked by counting steps up to the longest request line, never by clocks).
 */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { maxLineBytes } from "../src/AppServer.js"
import * as Messages from "../src/Messages.js"
import * as UriPattern from "../src/internal/uriPattern.js"
import * as ResourcePolicy from "../src/ResourcePolicy.js"

const judged = (uri: string): string => {
  const normalized = ResourcePolicy.normalize(uri)
  assert.strictEqual(normalized._tag, "judged", `${uri} is judged`)
  return normalized._tag === "judged" ? normalized.uri : ""
}

const unjudgeable = (uri: string): string => {
  const normalized = ResourcePolicy.normalize(uri)
  assert.strictEqual(normalized._tag, "unjudgeable", `${uri} is not judged`)
  return normalized._tag === "unjudgeable" ? normalized.what : ""
}

describe("the form of a URI the rules judge", () => {
  it("scheme and host in lower case, unreserved and never-raw characters decoded, dot segments removed", () => {
    assert.strictEqual(judged("FILE:///repo/.env"), "file:///repo/.env")
    assert.strictEqual(judged("file:///repo/%2Eenv"), "file:///repo/.env")
    assert.strictEqual(judged("file:///repo/%2eENV"), "file:///repo/.ENV")
    assert.strictEqual(judged("file:///repo/./.env"), "file:///repo/.env")
    assert.strictEqual(judged("file:///repo/x/../.env"), "file:///repo/.env")
    assert.strictEqual(judged("file:///repo/%2E%2E/repo/.env"), "file:///repo/.env")
    assert.strictEqual(judged("file:///repo/%73ecret"), "file:///repo/secret")
    assert.strictEqual(judged("file://LOCALHOST/repo/a"), "file:///repo/a")
    assert.strictEqual(judged("HTTPS://Example.COM:443/A%7eb?Q=%41%2f#F%61"), "https://example.com/A~b?Q=A%2F#Fa")
    assert.strictEqual(judged("http://h:/p"), "http://h/p")
    assert.strictEqual(judged("http://h:8080/p"), "http://h:8080/p")
    assert.strictEqual(judged("file:///my%20file%C3%A9"), "file:///my fileé")
    // reserved characters keep their spelling; a stray byte that is not UTF-8 stays encoded (upper case)
    assert.strictEqual(judged("db://t/a%3bb%25c%ff"), "db://t/a%3Bb%25c%FF")
    // a trailing `/` stays (deny rules also see the URI without it)
    assert.strictEqual(judged("file:///repo/.env/"), "file:///repo/.env/")
    assert.strictEqual(judged("file:///repo/.env/x/.."), "file:///repo/.env/")
    assert.strictEqual(judged("ui://shop/cart.html"), "ui://shop/cart.html")
  })

  it("a URI whose meaning depends on how the server reads it is not judged, and the reason says why", () => {
    assert.strictEqual(unjudgeable("file:///repo/secret%2Fk"), 'an encoded "/" (%2F) in its path')
    assert.strictEqual(unjudgeable("file:///repo/secret%2fk"), 'an encoded "/" (%2F) in its path')
    assert.strictEqual(unjudgeable("file:///repo%5C.env"), 'an encoded "\\" (%5C) in its path')
    assert.strictEqual(unjudgeable("file:///repo\\.env"), 'a "\\" before its query')
    assert.strictEqual(unjudgeable("file:///repo//.env"), 'an empty path segment ("//")')
    assert.strictEqual(unjudgeable("file:////repo/.env"), 'an empty path segment ("//")')
    assert.strictEqual(unjudgeable("file:///../repo/.env"), 'a ".." segment above the root of its path')
    assert.strictEqual(unjudgeable("file:///repo/../../.env"), 'a ".." segment above the root of its path')
    assert.strictEqual(unjudgeable("file:///repo/.e\tnv"), "a control character")
    assert.strictEqual(unjudgeable("file:///repo/.env%00.txt"), "an encoded control character in its path")
    assert.strictEqual(unjudgeable("file:///repo/%zz"), "a malformed percent-encoding")
    assert.strictEqual(unjudgeable(" file:///repo/.env"), "a space at its start or end")
    // in a query the same bytes are data
    assert.strictEqual(judged("db://t?path=a%2Fb%5C%00"), "db://t?path=a%2Fb%5C%00")
  })

  it("decisions: every spelling of a denied URI is denied; an unjudgeable one is refused with its reason", () => {
    const rules = { deny: ["file:///repo/.env", "file:///repo/secrets/**", "FILE:///Repo/%2Eold"] }
    for (const uri of [
      "FILE:///repo/.env",
      "file:///repo/%2Eenv",
      "file:///repo/./.env",
      "file:///repo/x/../.env",
      "file:///repo/.env/",
      "file:///repo/.env?v=1",
      "file:///repo/.env#top",
      "file://localhost/repo/.env",
      "file:///repo/%73ecrets/key",
      "file:///Repo/.old"
    ]) {
      const decision = ResourcePolicy.decide(rules, uri)
      assert.isFalse(decision.allowed, uri)
      assert.strictEqual(decision.allowed ? undefined : decision.rule?.list, "deny", uri)
      assert.strictEqual(ResourcePolicy.refusal(uri, decision), Messages.policy.readDenied(uri))
    }
    const encoded = ResourcePolicy.decide(rules, "file:///repo/secrets%2Fkey")
    assert.deepStrictEqual(encoded, { allowed: false, unjudgeable: 'an encoded "/" (%2F) in its path' })
    assert.strictEqual(
      ResourcePolicy.refusal("file:///repo/secrets%2Fkey", encoded),
      'resources/read failed: access to file:///repo/secrets%2Fkey is denied by host policy: the resource rules cannot judge a URI with an encoded "/" (%2F) in its path'
    )
    // allowed URIs stay allowed in any spelling, and an allow list judges the normalized form too
    assert.isTrue(ResourcePolicy.isAllowed(rules, "file:///repo/%61.txt"))
    assert.isTrue(ResourcePolicy.isAllowed({ allow: ["file:///repo/**"], deny: [] }, "FILE:///repo/a/../b"))
    assert.isFalse(ResourcePolicy.isAllowed({ allow: ["file:///repo/**"], deny: [] }, "file:///repo/../etc/passwd"))
    // a template's text is judged as written when it cannot be normalized
    assert.isTrue(ResourcePolicy.isTemplateListed(rules, "file:///repo/{+path}"))
    assert.isFalse(ResourcePolicy.isTemplateListed(rules, "file:///repo/secrets/{name}"))
  })

  it("property: a judged form is judged again as itself, and a deny pattern of it denies the URI", () => {
    const segment = fc.stringMatching(/^[A-Za-z0-9._~%-]{0,8}$/)
    const uri = fc
      .tuple(
        fc.constantFrom("file", "FILE", "mem", "HTTPS"),
        fc.constantFrom("", "Host", "localhost"),
        fc.array(segment)
      )
      .map(([scheme, host, segments]) => `${scheme}://${host}/${segments.join("/")}`)
    fc.assert(
      fc.property(uri, (u) => {
        const normalized = ResourcePolicy.normalize(u)
        if (normalized._tag === "unjudgeable") return
        assert.deepStrictEqual(ResourcePolicy.normalize(normalized.uri), normalized)
        const literal = normalized.uri.replace(/[*{]/g, "_")
        if (literal === normalized.uri) assert.isFalse(ResourcePolicy.isAllowed({ deny: [literal] }, u))
      }),
      { numRuns: 2000 }
    )
  })
})

/** URIs that make a backtracking matcher try every split: long runs of the characters the pattern waits for. */
const adversarial = [
  { pattern: "**a**a**b", uri: (n: number) => "a".repeat(n) },
  {
    pattern: "file:///**/x/**/y/**/.env",
    uri: (n: number) => `file:///${"x/y/".repeat(Math.ceil(n / 4))}`.slice(0, n)
  },
  { pattern: "{+a}/{+b}/{+c}z", uri: (n: number) => "/".repeat(n) },
  { pattern: "**/*/*/*/*/q", uri: (n: number) => "a/".repeat(Math.ceil(n / 2)).slice(0, n) }
]

describe("the matcher", () => {
  it("steps grow linearly with the URI up to the longest request line, for patterns with two and three `**`", () => {
    for (const { pattern, uri } of adversarial) {
      const positions = pattern.length + 1
      let previous: number | undefined
      for (let n = 1024; n <= maxLineBytes; n *= 4) {
        const steps = ResourcePolicy.matchSteps(pattern, uri(n))
        // never more than one step per pattern position per character
        assert.isAtMost(steps, n * positions, `${pattern} on ${n} characters`)
        // four times the URI is at most four times the steps (plus a constant of the pattern: its start-up)
        if (previous !== undefined)
          assert.isAtMost(steps, 4 * (previous + positions * positions), `${pattern} on ${n} characters`)
        previous = steps
      }
    }
  }, 120_000)

  it("a 1 MiB URI under a three-`**` deny pattern is decided (it does not match)", () => {
    const uri = `file:///${"a/".repeat(512 * 1024)}`
    assert.deepStrictEqual(ResourcePolicy.decide({ deny: ["file:///**a**a**a**b"] }, uri), { allowed: true })
    assert.isAtMost(ResourcePolicy.matchSteps("file:///**a**a**a**b", uri), uri.length * 21)
  }, 60_000)

  it("property: the matcher agrees with the pattern language as a regular expression on short inputs", () => {
    const toRegExp = (pattern: string): RegExp => {
      let source = ""
      for (let i = 0; i < pattern.length; i++) {
        const c = pattern[i]!
        if (c === "*" && pattern[i + 1] === "*") {
          source += "[\\s\\S]*"
          i += 1
        } else if (c === "*") source += "[^/]*"
        else if (c === "{") {
          const end = pattern.indexOf("}", i + 1)
          if (end === -1) {
            source += pattern.slice(i).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
            break
          }
          const operator = pattern[i + 1]
          source += operator === "+" || operator === "#" ? "[\\s\\S]*" : operator === "/" ? "(?:/[^/]*)*" : "[^/]*"
          i = end
        } else source += c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
      }
      return new RegExp(`^${source}$`, "u")
    }
    const token = fc.constantFrom("a", "b", "/", "*", "**", "{x}", "{/x}", "{+x}", "{?x}", ".", "{")
    const text = fc.array(fc.constantFrom("a", "b", "/", "."), { maxLength: 10 }).map((cs) => cs.join(""))
    fc.assert(
      fc.property(fc.array(token, { maxLength: 8 }), text, (tokens, input) => {
        const pattern = tokens.join("")
        assert.strictEqual(
          ResourcePolicy.matches(pattern, input),
          toRegExp(pattern).test(input),
          `${pattern} ~ ${input}`
        )
      }),
      { numRuns: 5000 }
    )
  })

  it("property: the bit-mask run (short patterns) and the position-list run agree, in answer and steps", () => {
    const token = fc.constantFrom("a", "é", "/", "*", "**", "{x}", "{/x}", "{+x}", ".", "b")
    const text = fc.array(fc.constantFrom("a", "é", "/", ".", "b"), { maxLength: 24 }).map((cs) => cs.join(""))
    fc.assert(
      fc.property(fc.array(token, { maxLength: 12 }), text, (tokens, input) => {
        const program = UriPattern.compile(tokens.join(""))
        if (program.bits === undefined) return
        const list = { steps: 0 }
        const bits = { steps: 0 }
        assert.strictEqual(UriPattern.runList(program, input, list), UriPattern.runBits(program.bits, input, bits))
        assert.strictEqual(bits.steps, list.steps)
      }),
      { numRuns: 5000 }
    )
    // a pattern over the bit limit runs on lists, with the same answers
    const long = `file:///${"d/".repeat(UriPattern.maxBitPositions)}**/.env`
    assert.isUndefined(UriPattern.compile(long).bits)
    assert.isTrue(ResourcePolicy.matches(long, `file:///${"d/".repeat(UriPattern.maxBitPositions)}x/.env`))
    assert.isFalse(ResourcePolicy.matches(long, `file:///${"d/".repeat(UriPattern.maxBitPositions - 1)}x/.env`))
  })
})
