/**
 * The spec text of every model-facing resource tool in the Responses API function form: the codex
 * profile's three (resource-tools.md section 3), and the extended profile's, derived from them by
 * override, with its completion tool. Key order is API: `JSON.stringify` of each value is
 * byte-identical to the spec (an override keeps the place of every key it replaces).
 */
import type { ToolPayload } from "@mcp-resources/protocol"

/** `list_mcp_resources`: one page of one server, or every accessible server. */
export const listMcpResources: ToolPayload.ToolSpec = {
  type: "function",
  name: "list_mcp_resources",
  description:
    "Lists resources provided by MCP servers. Resources allow servers to share data that provides context to language models, such as files, database schemas, or application-specific information. Prefer resources over web search when possible.",
  strict: false,
  parameters: {
    type: "object",
    properties: {
      cursor: {
        type: "string",
        description: "Opaque cursor from a previous list_mcp_resources call; omit for the first page."
      },
      server: {
        type: "string",
        description: "MCP server name. Omit to list resources from every configured server."
      }
    },
    additionalProperties: false
  }
}

/** `list_mcp_resource_templates`: the template variant of {@link listMcpResources}. */
export const listMcpResourceTemplates: ToolPayload.ToolSpec = {
  type: "function",
  name: "list_mcp_resource_templates",
  description:
    "Lists resource templates provided by MCP servers. Parameterized resource templates allow servers to share data that takes parameters and provides context to language models, such as files, database schemas, or application-specific information. Prefer resource templates over web search when possible.",
  strict: false,
  parameters: {
    type: "object",
    properties: {
      cursor: {
        type: "string",
        description: "Opaque cursor from a previous list_mcp_resource_templates call; omit for the first page."
      },
      server: {
        type: "string",
        description: "MCP server name. Omit to list resource templates from every configured server."
      }
    },
    additionalProperties: false
  }
}

/** `read_mcp_resource`: one `resources/read` of one server. */
export const readMcpResource: ToolPayload.ToolSpec = {
  type: "function",
  name: "read_mcp_resource",
  description: "Read a specific resource from an MCP server given the server name and resource URI.",
  strict: false,
  parameters: {
    type: "object",
    properties: {
      server: {
        type: "string",
        description:
          "MCP server name exactly as configured. Must match the 'server' field returned by list_mcp_resources."
      },
      uri: {
        type: "string",
        description: "Resource URI to read. Must be one of the URIs returned by list_mcp_resources."
      }
    },
    required: ["server", "uri"],
    additionalProperties: false
  }
}

/** The three resource tools, in the order they are offered. */
export const resourceToolSpecs: ReadonlyArray<ToolPayload.ToolSpec> = [
  listMcpResources,
  listMcpResourceTemplates,
  readMcpResource
]

/** The names of the three resource tools. */
export const resourceToolNames: ReadonlyArray<string> = resourceToolSpecs.map((spec) => spec.name)

/** A spec with some fields replaced: `parameters.properties` is merged (new properties go last). */
export interface SpecOverride {
  readonly description?: string
  readonly properties?: Readonly<Record<string, unknown>>
  readonly required?: ReadonlyArray<string>
}

/** `spec` with the fields of `override` replaced, every key in its place. */
export const override = (spec: ToolPayload.ToolSpec, changes: SpecOverride): ToolPayload.ToolSpec => {
  const parameters = spec.parameters as Readonly<Record<string, unknown>>
  return {
    ...spec,
    ...(changes.description === undefined ? {} : { description: changes.description }),
    ...(changes.properties === undefined && changes.required === undefined
      ? {}
      : {
          parameters: {
            ...parameters,
            ...(changes.properties === undefined
              ? {}
              : {
                  properties: {
                    ...(parameters.properties as Readonly<Record<string, unknown>>),
                    ...changes.properties
                  }
                }),
            ...(changes.required === undefined ? {} : { required: changes.required })
          }
        })
  } as ToolPayload.ToolSpec
}

/** The extended profile's specs: the codex ones with windows, templates and large resources described. */
export const extended = {
  /** `list_mcp_resources`: marks large resources. */
  listMcpResources: override(listMcpResources, {
    description: `${listMcpResources.description} A resource marked "large": true is bigger than one tool output; read_mcp_resource returns it in windows you can page through with offset.`
  }),
  /** `list_mcp_resource_templates`: the codex spec. */
  listMcpResourceTemplates,
  /** `read_mcp_resource`: by `uri` or by `uriTemplate` and `arguments`; `offset` and `length` in UTF-8 bytes; `since` an earlier read. */
  readMcpResource: override(readMcpResource, {
    description:
      "Read a specific resource from an MCP server given the server name and resource URI. Text larger than one tool output comes in windows: the output ends with a note giving the byte range shown, the total size and the offset to pass next; call again with that offset to read on until the note says it is the end. Images come as images; other binary content (PDF, audio, archives) is described by MIME type and size, its bytes are not sent. To see what changed in a resource you read before, pass since: you get a unified diff against that read (or a note that nothing changed), or the whole text with a note saying why no diff could be given.",
    properties: {
      uri: {
        type: "string",
        description:
          "Resource URI to read. Must be one of the URIs returned by list_mcp_resources. Give either uri or uriTemplate, not both."
      },
      uriTemplate: {
        type: "string",
        description:
          "Instead of uri: a resource template exactly as list_mcp_resource_templates returns it; the URI is built from it and arguments."
      },
      arguments: {
        type: "object",
        additionalProperties: { type: "string" },
        description:
          'With uriTemplate: a string value for every variable the template lists (its \'variables\'), e.g. {"id": "42"}. Values are given as they are; the encoding is applied for you.'
      },
      offset: {
        type: "integer",
        minimum: 0,
        description:
          "Where the window starts, in UTF-8 bytes of the resource's text (all text contents in order). Take it from the previous window's note; omit for the start."
      },
      length: {
        type: "integer",
        minimum: 0,
        description: "The most bytes of text to return; omit for as much as fits in one tool output."
      },
      since: {
        anyOf: [
          { type: "string", enum: ["last"] },
          { type: "object", properties: { callId: { type: "string" } }, required: ["callId"] }
        ],
        description:
          'Answer with what changed since an earlier read of this resource in this conversation: "last" for the latest one, or {"callId": "..."} for the read_mcp_resource call with that id.'
      }
    },
    required: ["server"]
  })
} as const

/** `complete_mcp_resource_argument`: candidate values for one variable of a resource template. */
export const completeMcpResourceArgument: ToolPayload.ToolSpec = {
  type: "function",
  name: "complete_mcp_resource_argument",
  description:
    "Suggest values for one variable of an MCP resource template, from the server that lists it. Use it to find a value to pass in read_mcp_resource's arguments with that uriTemplate.",
  strict: false,
  parameters: {
    type: "object",
    properties: {
      server: {
        type: "string",
        description: "MCP server name exactly as configured, as returned by list_mcp_resource_templates."
      },
      uriTemplate: {
        type: "string",
        description: "The resource template exactly as list_mcp_resource_templates returns it."
      },
      argument: { type: "string", description: "The name of the variable to complete." },
      value: { type: "string", description: "What is known of the value so far (may be empty)." },
      context: {
        type: "object",
        additionalProperties: { type: "string" },
        description: "Values already chosen for the template's other variables."
      }
    },
    required: ["server", "uriTemplate", "argument", "value"],
    additionalProperties: false
  }
}

/** `search_mcp_resources` (extended profile): ranked matches over every server's resources and templates. */
export const searchMcpResources: ToolPayload.ToolSpec = {
  type: "function",
  name: "search_mcp_resources",
  description:
    "Search the resources and resource templates of every MCP server by name, title, description and URI. Prefixes and small typos match. Returns the best matches first, each with its server, uri (or uriTemplate), name, title, mimeType, a short description and a score; read one with read_mcp_resource. Use it instead of paging through list_mcp_resources when you know what you are looking for.",
  strict: false,
  parameters: {
    type: "object",
    properties: {
      query: { type: "string", description: "Words to look for in resource names, titles, descriptions and URIs." },
      server: {
        type: "string",
        description: "Only this MCP server's resources (its name exactly as configured)."
      },
      mimeType: { type: "string", description: "Only resources with exactly this MIME type." },
      limit: {
        type: "integer",
        minimum: 1,
        maximum: 50,
        description: "The most matches to return (default 10, at most 50)."
      }
    },
    required: ["query"],
    additionalProperties: false
  }
}

/** The extended profile's resource tools (the three of codex, then search), in the order they are offered. */
export const extendedResourceToolSpecs: ReadonlyArray<ToolPayload.ToolSpec> = [
  extended.listMcpResources,
  extended.listMcpResourceTemplates,
  extended.readMcpResource,
  searchMcpResources
]
