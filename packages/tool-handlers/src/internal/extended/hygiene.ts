/** Text hygiene of the extended profile's model-facing text: bidi controls made visible. */

/** The bidirectional control characters: ALM, LRM, RLM, LRE..RLO (U+202A..U+202E), LRI..PDI (U+2066..U+2069). */
const bidi = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g
const anyBidi = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/

const hex = (c: string): string => c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")

/** `s` with every bidi control written as `<U+202E>` (for names and URIs in plain text). */
export const escapeBidi = (s: string): string => (anyBidi.test(s) ? s.replace(bidi, (c) => `<U+${hex(c)}>`) : s)

/**
 * JSON text with every bidi control written as a `\u202E` escape: the same JSON value, but the model
 * sees the escape instead of text that reorders what follows.
 */
export const escapeBidiJson = (json: string): string =>
  anyBidi.test(json) ? json.replace(bidi, (c) => `\\u${hex(c)}`) : json
