/** fast-check 4 arbitraries of hostile input: raw argument text, JSON-RPC lines, config files. */
import fc from "fast-check"

/** Deeply nested JSON text (arrays or objects), up to `max` levels. */
export const deepNesting = (max: number): fc.Arbitrary<string> =>
  fc
    .tuple(fc.integer({ min: 1, max }), fc.boolean())
    .map(([depth, arrays]) =>
      arrays ? `${"[".repeat(depth)}${"]".repeat(depth)}` : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`
    )

/** Numbers a parser may choke on, as JSON text. */
export const hugeNumber: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom("1e999999", "-1e999999", "1e-999999", "-0", "123456789012345678901234567890123456789"),
  fc.bigInt().map((n) => n.toString()),
  fc.double().map((n) => (Number.isFinite(n) ? String(n) : "1e400"))
)

/** A JSON value of any kind, including the hostile numbers (as a parsed value). */
export const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, 0, -1, 1e308, [], {}, "", "   ") }
)

/** A field value aimed at one string field: mostly plausible strings, sometimes every other kind. */
export const fieldValue = (plausible: ReadonlyArray<string>): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...plausible) },
    { weight: 2, arbitrary: fc.constantFrom(...plausible).map((s) => `  ${s}\t`) },
    { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
    { weight: 2, arbitrary: anyValue }
  )

/** Raw argument text for a tool whose fields are `fields` (name → plausible values). */
export const rawArguments = (fields: Readonly<Record<string, ReadonlyArray<string>>>): fc.Arbitrary<string> => {
  const record = fc.record(
    {
      ...Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, fieldValue(v)])),
      extra: anyValue,
      link_id: fieldValue(["link_best_buy", "link_other", ""])
    },
    { requiredKeys: [] }
  )
  const objectText = record.map((o) => JSON.stringify(o))
  // Every field present with a plausible string: the calls that get past argument checks.
  const plausible = fc
    .record(Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, fc.constantFrom(...v)])))
    .map((o) => JSON.stringify(o))
  return fc.oneof(
    { weight: 6, arbitrary: objectText },
    { weight: 2, arbitrary: plausible },
    // Broken JSON: a valid object cut short, or with a byte changed.
    {
      weight: 2,
      arbitrary: fc
        .tuple(objectText, fc.nat(), fc.string({ unit: "binary", maxLength: 3 }))
        .map(([s, at, junk]) => s.slice(0, at % (s.length + 1)) + junk)
    },
    // Duplicate keys: the last one wins.
    {
      weight: 1,
      arbitrary: fc
        .tuple(objectText, objectText)
        .map(([a, b]) => (a === "{}" || b === "{}" ? a : `${a.slice(0, -1)},${b.slice(1)}`))
    },
    { weight: 1, arbitrary: fc.json({ maxDepth: 4 }) },
    { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 64 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom("", " ", "\n\t ", "null", " null ", "[]", '["srv","c"]', '"str"', "5", "true")
    },
    { weight: 1, arbitrary: deepNesting(2000) },
    { weight: 1, arbitrary: hugeNumber },
    { weight: 1, arbitrary: objectText.map((s) => `\uFEFF${s}`) }
  )
}
