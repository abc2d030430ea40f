/**
 * The wire types of the MCP skills extension (`io.modelcontextprotocol/skills`) as Effect Schemas:
 * the entry of `skills/list` and `skills/get` (its `SKILL.md` URI, its frontmatter verbatim, and the
 * manifest of its files with digests and sizes, or `"dynamic"`), and `resources/directory/read`.
 */
import { Schema } from "effect"
import { opt } from "./internal/schema.js"
import { JsonObject, Resource } from "./Mcp.js"
import { passThrough } from "./Records.js"

/** The extension's identifier in a server's `capabilities.extensions`. */
export const extensionId = "io.modelcontextprotocol/skills"

/** The most files one skill may list (`SKILL.md` included). */
export const maxFiles = 512

/** The most bytes (the sum of the manifest's sizes) one skill may have: 16 MiB. */
export const maxBytes = 16777216

/** The `mimeType` of a directory resource. */
export const directoryMimeType = "inode/directory"

/** `sha256:` and 64 lowercase hexadecimal digits. */
export const Digest = Schema.String.pipe(Schema.pattern(/^sha256:[0-9a-f]{64}$/)).annotations({
  identifier: "SkillDigest",
  description: "`sha256:` followed by 64 lowercase hexadecimal digits"
})

/** One file of a skill's manifest: its resource URI, the SHA-256 digest and the length of its raw bytes. */
export const SkillFile = Schema.Struct({
  uri: Schema.String,
  digest: Digest,
  size: Schema.Int.pipe(Schema.nonNegative())
}).annotations({ identifier: "SkillFile" })
/** One file of a skill's manifest. */
export type SkillFile = typeof SkillFile.Type

/** A skill's frontmatter verbatim: `name` and `description` are required, every other field is kept. */
export const Frontmatter = passThrough(
  Schema.Struct({ name: Schema.String, description: Schema.String }, { key: Schema.String, value: Schema.Unknown })
).annotations({ identifier: "SkillFrontmatter" })
/** A skill's frontmatter. */
export type Frontmatter = typeof Frontmatter.Type

/** The manifest: every file of the skill, or `"dynamic"` when the server publishes no stable digests. */
export const Manifest = Schema.Union(Schema.Array(SkillFile), Schema.Literal("dynamic")).annotations({
  identifier: "SkillManifest"
})
/** The manifest of a skill. */
export type Manifest = typeof Manifest.Type

/** One skill entry, as `skills/list` and `skills/get` give it. */
export const Skill = Schema.Struct({
  uri: Schema.String,
  frontmatter: Frontmatter,
  resources: Manifest,
  _meta: opt(JsonObject)
}).annotations({ identifier: "ExtensionSkill" })
/** One skill entry. */
export type Skill = typeof Skill.Type

/** One page of `skills/list`. */
export const ListSkillsResult = Schema.Struct({
  skills: Schema.Array(Schema.Unknown),
  nextCursor: opt(Schema.String)
}).annotations({ identifier: "ListSkillsResult" })
/** One page of `skills/list`: the entries undecoded, so that one malformed entry does not fail the page. */
export type ListSkillsResult = typeof ListSkillsResult.Type

/** The result of `skills/get`. */
export const GetSkillResult = Schema.Struct({ skill: Skill }).annotations({ identifier: "GetSkillResult" })
/** The result of `skills/get`. */
export type GetSkillResult = typeof GetSkillResult.Type

/** One page of `resources/directory/read`: the directory's direct children. */
export const ReadDirectoryResult = Schema.Struct({
  resources: Schema.Array(Resource),
  nextCursor: opt(Schema.String)
}).annotations({ identifier: "ReadResourceDirectoryResult" })
/** One page of `resources/directory/read`. */
export type ReadDirectoryResult = typeof ReadDirectoryResult.Type

/** What a server declared for the extension: whether it serves `resources/directory/read`. */
export interface Declaration {
  readonly directoryRead: boolean
}

/** The server's declaration of the extension from its `capabilities.extensions`, when it made one. */
export const declarationOf = (extensions: unknown): Declaration | undefined => {
  if (typeof extensions !== "object" || extensions === null) return undefined
  const declared = (extensions as Record<string, unknown>)[extensionId]
  if (typeof declared !== "object" || declared === null || Array.isArray(declared)) return undefined
  return { directoryRead: (declared as Record<string, unknown>).directoryRead === true }
}
