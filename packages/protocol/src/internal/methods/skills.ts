/** `skills/list`, `skills/read` and the MCP skills extension (`skills/extension/*`). */
import { Schema } from "effect"
import { JsonObject } from "../../Mcp.js"
import * as McpSkills from "../../McpSkills.js"
import { opt } from "../schema.js"
import { ThreadIdParams } from "./threads.js"

/** A catalog entry of `skills/list`. */
export const SkillEntry = Schema.Struct({
  name: Schema.String,
  description: Schema.String,
  package: Schema.String,
  mainResource: Schema.String,
  visible: Schema.Boolean
})
/** `skills/list` params. */
export const SkillsListParams = ThreadIdParams
/** `skills/list` result. */
export const SkillsListResult = Schema.Struct({
  skills: Schema.Array(SkillEntry),
  warnings: Schema.Array(Schema.String),
  truncated: Schema.Boolean
})
/** `skills/read` params. */
export const SkillsReadParams = Schema.Struct({
  threadId: Schema.String,
  package: Schema.String,
  resource: Schema.String
})
/** `skills/read` result; `next_cursor` is snake_case and always null. */
export const SkillsReadResult = Schema.Struct({
  resource: Schema.String,
  contents: Schema.String,
  next_cursor: Schema.Null
})

/** An entry of `skills/extension/list`: a skill of a server that declares the MCP skills extension. */
export const ExtensionSkillEntry = Schema.Struct({
  server: Schema.String.annotations({ description: "The configured name of the server the skill comes from." }),
  uri: Schema.String.annotations({ description: "The URI of the skill's SKILL.md; (server, uri) is the identity." }),
  name: Schema.String.annotations({
    description:
      "The name shown to the model: {server}/{name}, or {server}/{skill path} when a server lists a name twice."
  }),
  frontmatter: JsonObject.annotations({ description: "The SKILL.md frontmatter verbatim (name, description, ...)." }),
  resources: McpSkills.Manifest,
  allowedTools: Schema.Unknown.annotations({
    description: "The frontmatter's allowed-tools, shown only: it is never applied; null when absent."
  }),
  problem: Schema.NullOr(Schema.String).annotations({
    description: "Why the skill cannot be read (more than 512 files or 16 MiB); null when it can."
  })
}).annotations({ identifier: "ExtensionSkillEntry" })
/** `skills/extension/list` params: none. */
export const SkillsExtensionListParams = Schema.Struct({})
/** `skills/extension/list` result. */
export const SkillsExtensionListResult = Schema.Struct({
  skills: Schema.Array(ExtensionSkillEntry),
  warnings: Schema.Array(Schema.String)
})
/** `skills/extension/read` params: one listed file of a skill of `server`. */
export const SkillsExtensionReadParams = Schema.Struct({ server: Schema.String, uri: Schema.String })
/** `skills/extension/read` result: the verified file as text, or its bytes as base64 `blob`. */
export const SkillsExtensionReadResult = Schema.Struct({
  server: Schema.String,
  uri: Schema.String,
  skill: Schema.String.annotations({ description: "The URI of the SKILL.md of the skill the file belongs to." }),
  mimeType: Schema.NullOr(Schema.String),
  text: opt(Schema.String),
  blob: opt(Schema.String),
  verified: Schema.Boolean.annotations({
    description: "Checked against the manifest's size and digest; false for a skill whose manifest is dynamic."
  })
})
/** `skills/extension/changed` notification params: the file set of a skill changed; drop its approvals. */
export const SkillsExtensionChangedNotification = Schema.Struct({ server: Schema.String, uri: Schema.String })
