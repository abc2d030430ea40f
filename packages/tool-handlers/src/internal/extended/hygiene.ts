/**
 * Text hygiene of the extended profile's model-facing text: bidi and control characters made
 * visible, so that text from a server (its name, URIs, resource names and descriptions, read and
 * tool-result text) cannot reorder or hide what the model reads. The `codex` profile never comes here.
 */

/**
 * The characters escaped in plain text: C0 controls but tab and line feed, DEL, C1 controls, and the
 * bidirectional controls ALM (U+061C), LRM, RLM (U+200E, U+200F), LRE..RLO (U+202A..U+202E) and
 * LRI..PDI (U+2066..U+2069).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is matched
const control = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is matched
const anyControl = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/

/** The same in JSON text, where C0 controls are already escaped by the encoder (JSON cannot hold them raw). */
const jsonControl = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g
const anyJsonControl = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/

const hex = (c: string): string => c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")

/** True when `s` holds a character {@link escapeControls} rewrites. */
export const hasControls = (s: string): boolean => anyControl.test(s)

/**
 * `s` with every bidi and control character written as `<U+202E>` (tab and line feed stay): for
 * names, URIs, messages and text in plain text.
 */
export const escapeControls = (s: string): string =>
  anyControl.test(s) ? s.replace(control, (c) => `<U+${hex(c)}>`) : s

/**
 * JSON text with every bidi control, DEL and C1 control written as a `\u202E` escape: the same JSON
 * value, but the model sees the escape instead of text that reorders or hides what follows.
 */
export const escapeControlsJson = (json: string): string =>
  anyJsonControl.test(json) ? json.replace(jsonControl, (c) => `\\u${hex(c)}`) : json
