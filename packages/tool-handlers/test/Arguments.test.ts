import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import fc from "fast-check"
import { Arguments } from "../src/index.js"

const failure = <A>(result: Either.Either<A, { readonly message: string }>): string => {
  assert.isTrue(Either.isLeft(result), "expected a failure")
  return (result as Either.Left<{ readonly message: string }, A>).left.message
}
const success = <A>(result: Either.Either<A, { readonly message: string }>): A => {
  assert.isTrue(Either.isRight(result), `expected a success, got ${Either.isLeft(result) ? result.left.message : ""}`)
  return (result as Either.Right<unknown, A>).right
}

const prefix = "failed to parse function arguments: "

describe("list arguments (resource-tools.md 5.1, 5.2)", () => {
  it("A-1: blank text is no arguments", () => {
    assert.deepStrictEqual(success(Arguments.parseListArguments(" \n\t")), { raw: null })
  })

  it("A-2: null is no arguments", () => {
    assert.deepStrictEqual(success(Arguments.parseListArguments("null")), { raw: null })
  })

  it("A-3: a server name is kept with the raw object", () => {
    assert.deepStrictEqual(success(Arguments.parseListArguments(`{"server":"figma"}`)), {
      raw: { server: "figma" },
      server: "figma"
    })
  })

  it("A-4: server and cursor are trimmed; raw stays unnormalised", () => {
    assert.deepStrictEqual(success(Arguments.parseListArguments(`{"server":"  hosted  ","cursor":"  next-page  "}`)), {
      raw: { server: "  hosted  ", cursor: "  next-page  " },
      server: "hosted",
      cursor: "next-page"
    })
  })

  it("A-5: a blank server is absent", () => {
    assert.deepStrictEqual(success(Arguments.parseListArguments(`{"server":"   "}`)), { raw: { server: "   " } })
  })

  it("A-6: a cursor alone is accepted by the parser (the cursor rule runs in phase 2)", () => {
    assert.deepStrictEqual(success(Arguments.parseListArguments(`{"cursor":"abc"}`)), {
      raw: { cursor: "abc" },
      cursor: "abc"
    })
  })

  it("A-7: invalid JSON fails with the invalid JSON message", () => {
    for (const text of ["{", `{"server":`, "not json", `{"server":"a"} trailing`]) {
      assert.strictEqual(failure(Arguments.parseListArguments(text)), `${prefix}arguments are not valid JSON`)
    }
  })

  it("A-8: a number server fails", () => {
    assert.strictEqual(
      failure(Arguments.parseListArguments(`{"server":5}`)),
      `${prefix}field "server" must be a string, got number`
    )
  })

  it("A-9: an object server fails", () => {
    assert.strictEqual(
      failure(Arguments.parseListArguments(`{"server":{}}`)),
      `${prefix}field "server" must be a string, got object`
    )
  })

  it("A-10: an array cursor fails", () => {
    assert.strictEqual(
      failure(Arguments.parseListArguments(`{"cursor":[1]}`)),
      `${prefix}field "cursor" must be a string, got array`
    )
  })

  it("A-11: scalars are not objects", () => {
    assert.strictEqual(failure(Arguments.parseListArguments(`"str"`)), `${prefix}expected a JSON object, got string`)
    assert.strictEqual(failure(Arguments.parseListArguments("5")), `${prefix}expected a JSON object, got number`)
    assert.strictEqual(failure(Arguments.parseListArguments("true")), `${prefix}expected a JSON object, got boolean`)
  })

  it("A-12: arrays are rejected, positional or not", () => {
    for (const text of ["[]", `["srv"]`, `["srv","cur"]`, `["a","b","c"]`]) {
      assert.strictEqual(failure(Arguments.parseListArguments(text)), `${prefix}expected a JSON object, got array`)
    }
  })

  it("A-13: a null server and an empty object are both absent", () => {
    assert.deepStrictEqual(success(Arguments.parseListArguments(`{"server":null}`)), { raw: { server: null } })
    assert.deepStrictEqual(success(Arguments.parseListArguments("{}")), { raw: {} })
  })

  it("A-14: unknown fields are ignored and kept in raw", () => {
    assert.deepStrictEqual(success(Arguments.parseListArguments(`{"server":"srv","extra":1}`)), {
      raw: { server: "srv", extra: 1 },
      server: "srv"
    })
  })

  it("server is checked before cursor, and the last duplicate key wins", () => {
    assert.strictEqual(
      failure(Arguments.parseListArguments(`{"cursor":1,"server":2}`)),
      `${prefix}field "server" must be a string, got number`
    )
    assert.deepStrictEqual(success(Arguments.parseListArguments(`{"server":5,"server":" b "}`)), {
      raw: { server: " b " },
      server: "b"
    })
  })
})

describe("nesting depth", () => {
  const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`

  it("arguments nested 128 levels deep are accepted; 129 and 5,000 levels are an argument error", () => {
    success(Arguments.parseRaw(nested(128)))
    success(Arguments.parseRaw(`{"server":"s","uri":"u","extra":${"[".repeat(127)}${"]".repeat(127)}}`))
    const message = `${prefix}arguments are nested deeper than 128 levels`
    assert.strictEqual(failure(Arguments.parseRaw(nested(129))), message)
    assert.strictEqual(failure(Arguments.parseReadArguments(nested(5000))), message)
    assert.strictEqual(failure(Arguments.parseListArguments(`{"x":${"[".repeat(5000)}${"]".repeat(5000)}}`)), message)
  })
})

describe("read arguments (resource-tools.md 5.3)", () => {
  it("A-15: no arguments miss the server", () => {
    for (const text of ["", "null", "{}"]) {
      assert.strictEqual(failure(Arguments.parseReadArguments(text)), `${prefix}missing required field "server"`)
    }
  })

  it("A-16: a missing uri fails", () => {
    assert.strictEqual(failure(Arguments.parseReadArguments(`{"server":"s"}`)), `${prefix}missing required field "uri"`)
  })

  it("A-17: a missing server fails first", () => {
    assert.strictEqual(failure(Arguments.parseReadArguments(`{"uri":"u"}`)), `${prefix}missing required field "server"`)
  })

  it("A-18: a null server is not a string", () => {
    assert.strictEqual(
      failure(Arguments.parseReadArguments(`{"server":null,"uri":"u"}`)),
      `${prefix}field "server" must be a string, got null`
    )
  })

  it("A-19: a number server is not a string", () => {
    assert.strictEqual(
      failure(Arguments.parseReadArguments(`{"server":1,"uri":"u"}`)),
      `${prefix}field "server" must be a string, got number`
    )
  })

  it("A-20: non-objects are rejected", () => {
    assert.strictEqual(failure(Arguments.parseReadArguments(`"x"`)), `${prefix}expected a JSON object, got string`)
    assert.strictEqual(failure(Arguments.parseReadArguments(`["s"]`)), `${prefix}expected a JSON object, got array`)
    assert.strictEqual(failure(Arguments.parseReadArguments(`["s","u"]`)), `${prefix}expected a JSON object, got array`)
  })

  it("A-21: a blank server must be provided", () => {
    assert.strictEqual(failure(Arguments.parseReadArguments(`{"server":"  ","uri":"u"}`)), "server must be provided")
  })

  it("A-22: a blank uri must be provided", () => {
    assert.strictEqual(failure(Arguments.parseReadArguments(`{"server":"s","uri":"  "}`)), "uri must be provided")
  })

  it("A-23: both fields are type-checked before normalisation", () => {
    assert.strictEqual(
      failure(Arguments.parseReadArguments(`{"server":"  ","uri":5}`)),
      `${prefix}field "uri" must be a string, got number`
    )
  })

  it("A-24: server and uri are trimmed and unknown fields stay in raw", () => {
    assert.deepStrictEqual(
      success(Arguments.parseReadArguments(`{"server":" srv ","uri":" test://x ","extra":true}`)),
      {
        raw: { server: " srv ", uri: " test://x ", extra: true },
        server: "srv",
        uri: "test://x"
      }
    )
  })
})

const messages = [
  /^failed to parse function arguments: arguments are not valid JSON$/,
  /^failed to parse function arguments: expected a JSON object, got (boolean|number|string|array)$/,
  /^failed to parse function arguments: field "(server|cursor|uri)" must be a string, got (null|boolean|number|array|object)$/,
  /^failed to parse function arguments: missing required field "(server|uri)"$/,
  /^(server|uri) must be provided$/
]

const rawText = fc.oneof(
  fc.string({ unit: "binary" }),
  fc.json(),
  fc
    .record(
      {
        server: fc.oneof(fc.string(), fc.jsonValue()),
        cursor: fc.jsonValue(),
        uri: fc.oneof(fc.string(), fc.jsonValue())
      },
      { requiredKeys: [] }
    )
    .map((o) => JSON.stringify(o))
)

describe("argument properties", () => {
  it("any raw text parses to arguments or a model-facing message, never a throw", () => {
    fc.assert(
      fc.property(rawText, (text) => {
        for (const result of [Arguments.parseListArguments(text), Arguments.parseReadArguments(text)]) {
          if (Either.isLeft(result)) {
            assert.isTrue(
              messages.some((m) => m.test(result.left.message)),
              result.left.message
            )
          }
        }
      }),
      { numRuns: 1000 }
    )
  })

  it("normalised fields are trimmed and never blank", () => {
    fc.assert(
      fc.property(rawText, (text) => {
        const list = Arguments.parseListArguments(text)
        if (Either.isRight(list)) {
          for (const value of [list.right.server, list.right.cursor]) {
            if (value !== undefined) assert.isTrue(value === value.trim() && value !== "")
          }
        }
        const read = Arguments.parseReadArguments(text)
        if (Either.isRight(read)) {
          for (const value of [read.right.server, read.right.uri]) assert.isTrue(value === value.trim() && value !== "")
        }
      }),
      { numRuns: 1000 }
    )
  })
})
