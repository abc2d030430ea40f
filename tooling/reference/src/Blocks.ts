/**
 * Generated blocks inside hand-written Markdown: the text between
 * `<!-- BEGIN GENERATED: name -->` and `<!-- END GENERATED: name -->` is owned by the generator; the
 * rest of the file is prose.
 */

const pattern = /<!-- BEGIN GENERATED: ([^ ]+) -->\n[\s\S]*?<!-- END GENERATED: \1 -->/g

/** The names of the generated blocks a text holds, in order. */
export const blockNames = (text: string): ReadonlyArray<string> => [...text.matchAll(pattern)].map((m) => m[1]!)

/** A block with its markers. */
export const block = (name: string, body: string): string =>
  `<!-- BEGIN GENERATED: ${name} -->\n${body.trimEnd()}\n<!-- END GENERATED: ${name} -->`

/**
 * Replaces every generated block of `text` with the generator's body for that name. A block without a
 * generator, or a BEGIN without its END, fails: the file names what is wrong.
 */
export const fill = (file: string, text: string, bodies: Readonly<Record<string, string>>): string => {
  const begins = [...text.matchAll(/<!-- BEGIN GENERATED: ([^ ]+) -->/g)].map((m) => m[1]!)
  const found = blockNames(text)
  if (begins.length !== found.length) {
    const unclosed = begins.find((name) => !found.includes(name))
    throw new Error(`${file}: generated block ${unclosed} has no END marker`)
  }
  return text.replace(pattern, (_, name: string) => {
    const body = bodies[name]
    if (body === undefined) throw new Error(`${file}: no generator for the block ${name}`)
    return block(name, body)
  })
}
