import { describe, it } from "@effect/vitest"
import { assert } from "@effect/vitest"
import fc from "fast-check"
import {
  collapseWhitespace,
  escapeHtml,
  isValidSkillUri,
  maxPackageUriLength,
  resourceBelongsToPackage
} from "../src/SkillUri.js"

describe("SkillUri", () => {
  it("S-8: rejects URIs without a path segment, with empty segments, query, fragment, credentials, port, another scheme or white space", () => {
    const invalid = [
      "skill://a",
      "skill://a/",
      "skill://a//b",
      "skill://a/b?x",
      "skill://a/b#f",
      "skill://u@a/b",
      "skill://a:1/b",
      "SKILL://a/b",
      "file://a/b",
      "skill://a/b c"
    ]
    for (const uri of invalid) assert.isFalse(isValidSkillUri(uri, maxPackageUriLength), uri)
  })

  it("rejects empty queries and fragments, control characters, angle brackets and non-canonical paths", () => {
    const invalid = [
      "skill://a/b?",
      "skill://a/b#",
      "skill://a/b\u0007",
      "skill://a/<b>",
      "skill://a/./b",
      "skill:/a/b"
    ]
    for (const uri of invalid) assert.isFalse(isValidSkillUri(uri, maxPackageUriLength), uri)
  })

  it("accepts skill://host/segments that serialize to themselves", () => {
    for (const uri of ["skill://plugin_demo/deploy", "skill://a/b/c", "skill://a/b%20c", "skill://A/b"]) {
      assert.isTrue(isValidSkillUri(uri, maxPackageUriLength), uri)
    }
  })

  it("counts the length limit in characters", () => {
    const uri = `skill://a/${"é".repeat(1014)}`
    assert.strictEqual([...uri].length, 1024)
    assert.isFalse(isValidSkillUri(uri, 1024), "é is percent-encoded, so the input does not serialize to itself")
    const ascii = `skill://a/${"b".repeat(1014)}`
    assert.isTrue(isValidSkillUri(ascii, 1024))
    assert.isFalse(isValidSkillUri(`${ascii}c`, 1024))
  })

  it("S-14: a resource must strictly extend its package with the same host", () => {
    assert.isFalse(resourceBelongsToPackage("skill://p/d", "skill://p/d"))
    assert.isFalse(resourceBelongsToPackage("skill://p/d", "skill://q/d/x"))
    assert.isFalse(resourceBelongsToPackage("skill://p/d", "skill://p/e/x"))
    assert.isFalse(resourceBelongsToPackage("skill://p/d", "skill://p/dx/y"))
    assert.isFalse(resourceBelongsToPackage("skill://p/d/", "skill://p/d/x"))
    assert.isTrue(resourceBelongsToPackage("skill://p/d", "skill://p/d/x"))
    assert.isTrue(resourceBelongsToPackage("skill://p/d", "skill://p/d/references/guide.md"))
  })

  it("the resource may be up to 2048 characters, the package up to 1024", () => {
    const pkg = `skill://p/${"d".repeat(1014)}`
    const resource = `${pkg}/${"x".repeat(1023)}`
    assert.strictEqual(resource.length, 2048)
    assert.isTrue(resourceBelongsToPackage(pkg, resource))
    assert.isFalse(resourceBelongsToPackage(pkg, `${resource}x`))
    assert.isFalse(resourceBelongsToPackage(`${pkg}d`, `${pkg}d/x`))
  })

  it("collapses runs of white space and trims", () => {
    assert.strictEqual(collapseWhitespace("  my   skill "), "my skill")
    assert.strictEqual(collapseWhitespace("Deploy\nthrough\t the\u00a0x"), "Deploy through the x")
    assert.strictEqual(collapseWhitespace(" \n "), "")
  })

  it("collapsed text has no leading, trailing or doubled white space and collapsing is idempotent", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("a", " ", "\n", "\t", "\u00a0", "\u2028", "b") }), (s) => {
        const once = collapseWhitespace(s)
        return once === collapseWhitespace(once) && !/^\s|\s$|\s\s/.test(once)
      })
    )
  })

  it("escapes & first, then < and >", () => {
    assert.strictEqual(escapeHtml("a & <b> &lt;"), "a &amp; &lt;b&gt; &amp;lt;")
  })
})
