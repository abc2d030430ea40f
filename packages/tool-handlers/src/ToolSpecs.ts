/**
 * The three model-facing resource tools in the Responses API function form (resource-tools.md
 * section 3). Key order is API: `JSON.stringify` of each value is byte-identical to the spec.
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
