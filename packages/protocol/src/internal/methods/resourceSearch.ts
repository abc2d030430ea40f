/** `mcp/resource/search` (issue #45): params and result, re-exported by AppServer. */
import { Schema } from "effect"
import { opt } from "../schema.js"

/** `mcp/resource/search` params: a full-text search over every server's resources and templates. */
export const McpResourceSearchParams = Schema.Struct({
  threadId: opt(
    Schema.NullOr(Schema.String).annotations({
      description:
        "Search on this thread's binding (its access gate and resource rules); absent or null: the latest connection set."
    })
  ),
  query: Schema.String.annotations({
    description: "Words of a name, title, description or URI; prefixes and small typos match. Not empty."
  }),
  server: opt(Schema.String.annotations({ description: "Only this server's resources." })),
  mimeType: opt(Schema.String.annotations({ description: "Only resources with exactly this MIME type." })),
  limit: opt(Schema.Number.annotations({ description: "The most matches (default 10, at most 50)." }))
})

/** One match of `mcp/resource/search`: a resource (`uri`) or a resource template (`uriTemplate`). */
export const ResourceSearchMatch = Schema.Struct({
  server: Schema.String,
  uri: opt(Schema.String),
  uriTemplate: opt(Schema.String.annotations({ description: "Set instead of `uri` for a resource template." })),
  name: Schema.String,
  title: opt(Schema.String),
  mimeType: opt(Schema.String),
  description: opt(Schema.String.annotations({ description: "An excerpt of at most 160 characters." })),
  score: Schema.Number.annotations({ description: "The relevance (BM25+); higher is better." })
}).annotations({ identifier: "ResourceSearchMatch" })

/** A server whose part of the search index could not be built. */
export const ResourceSearchFailure = Schema.Struct({
  server: Schema.String,
  error: Schema.String.annotations({ description: "The message chain." })
}).annotations({ identifier: "ResourceSearchFailure" })

/** `mcp/resource/search` result: the best matches first, and the servers still indexing. */
export const McpResourceSearchResult = Schema.Struct({
  matches: Schema.Array(ResourceSearchMatch),
  indexing: Schema.Array(Schema.String).annotations({
    description: "Servers whose part of the index is still being built: their matches may be missing."
  }),
  failures: opt(
    Schema.Array(ResourceSearchFailure).annotations({
      description: "Servers whose last build failed (only when some)."
    })
  ),
  truncated: opt(
    Schema.Array(Schema.String).annotations({
      description: "Servers whose lists were cut at `[search] max_resources` (only when some)."
    })
  )
})
