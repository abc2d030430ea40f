/** The method tables: every method, notification and server request of the protocol, by name, with its schemas. */
import { Schema } from "effect"
import { ConfigReloadParams, ConfigReloadResult } from "./configReload.js"
import { ElicitationRequestParams, ElicitationRequestResult } from "./elicitation.js"
import { InitializeParams, InitializeResult } from "./initialize.js"
import { CancelRequestParams } from "./jsonRpc.js"
import {
  McpServerListParams,
  McpServerListResult,
  McpServerOAuthLoginCompletedNotification,
  McpServerOAuthLoginParams,
  McpServerOAuthLoginResult,
  McpServerOAuthScopeRequiredNotification,
  McpServerStatusChangedNotification
} from "./mcpServers.js"
import {
  McpResourceChangedNotification,
  McpResourceCompleteParams,
  McpResourceCompleteResult,
  McpResourceReadParams,
  McpResourceReadResult,
  McpResourceSubscribeParams,
  McpResourceSubscribeResult,
  McpResourceUnsubscribeParams,
  McpResourceUnsubscribeResult
} from "./resources.js"
import { McpResourceSearchParams, McpResourceSearchResult } from "./resourceSearch.js"
import {
  SkillsExtensionChangedNotification,
  SkillsExtensionListParams,
  SkillsExtensionListResult,
  SkillsExtensionReadParams,
  SkillsExtensionReadResult,
  SkillsListParams,
  SkillsListResult,
  SkillsReadParams,
  SkillsReadResult
} from "./skills.js"
import {
  ThreadCompactParams,
  ThreadCompactResult,
  ThreadDeleteParams,
  ThreadDeleteResult,
  ThreadListParams,
  ThreadListResult,
  ThreadResumeParams,
  ThreadResumeResult,
  ThreadRollbackParams,
  ThreadRollbackResult,
  ThreadRolledBackNotification,
  ThreadStartParams,
  ThreadStartResult
} from "./threads.js"
import { ToolCallParams, ToolCallResult, ToolListParams, ToolListResult } from "./tools.js"
import { ItemNotification, TurnStartedNotification, TurnStartParams, TurnStartResult } from "./turns.js"
import {
  WidgetCallToolParams,
  WidgetCallToolResult,
  WidgetListParams,
  WidgetListResult,
  WidgetReadParams,
  WidgetReadResourceParams,
  WidgetReadResourceResult,
  WidgetReadResult,
  WidgetToolsParams,
  WidgetToolsResult
} from "./widgets.js"

/** Server-to-client request method name -> params schema (sent only to clients that declared the method). */
export const serverRequests = {
  "mcpServer/elicitation/request": ElicitationRequestParams
} as const
/** A server-to-client request method. */
export type ServerRequestMethod = keyof typeof serverRequests
/** Server-to-client request method name -> result schema (the client's answer). */
export const serverRequestResults = {
  "mcpServer/elicitation/request": ElicitationRequestResult
} as const
/** The params of a server-to-client request. */
export type ServerRequestParams<M extends ServerRequestMethod> = (typeof serverRequests)[M]["Type"]
/** The result of a server-to-client request. */
export type ServerRequestResult<M extends ServerRequestMethod> = (typeof serverRequestResults)[M]["Type"]

/** Client notification method name -> params schema (`initialized` is accepted and ignored). */
export const clientNotifications = {
  "$/cancelRequest": CancelRequestParams,
  initialized: Schema.Unknown
} as const

/** Notification method name -> params schema. */
export const notifications = {
  "turn/started": TurnStartedNotification,
  "item/started": ItemNotification,
  "item/completed": ItemNotification,
  "thread/rolledBack": ThreadRolledBackNotification,
  "mcpServer/oauth/loginCompleted": McpServerOAuthLoginCompletedNotification,
  "mcpServer/oauth/scopeRequired": McpServerOAuthScopeRequiredNotification,
  "mcpServer/statusChanged": McpServerStatusChangedNotification,
  "skills/extension/changed": SkillsExtensionChangedNotification,
  "mcp/resource/changed": McpResourceChangedNotification
} as const
/** A notification method the app-server sends. */
export type NotificationMethod = keyof typeof notifications

/** Method name -> params schema, for every method of app-server-protocol.md section 3 and skills.md section 6. */
export const methods = {
  initialize: InitializeParams,
  "thread/start": ThreadStartParams,
  "thread/resume": ThreadResumeParams,
  "thread/list": ThreadListParams,
  "thread/delete": ThreadDeleteParams,
  "turn/start": TurnStartParams,
  "tool/list": ToolListParams,
  "tool/call": ToolCallParams,
  "mcp/resource/read": McpResourceReadParams,
  "mcpServer/resource/read": McpResourceReadParams,
  "mcp/resource/complete": McpResourceCompleteParams,
  "mcp/resource/search": McpResourceSearchParams,
  "mcp/resource/subscribe": McpResourceSubscribeParams,
  "mcp/resource/unsubscribe": McpResourceUnsubscribeParams,
  "thread/rollback": ThreadRollbackParams,
  "thread/compact": ThreadCompactParams,
  "config/mcpServer/reload": ConfigReloadParams,
  "mcpServer/list": McpServerListParams,
  "mcpServer/oauth/login": McpServerOAuthLoginParams,
  "skills/list": SkillsListParams,
  "skills/read": SkillsReadParams,
  "skills/extension/list": SkillsExtensionListParams,
  "skills/extension/read": SkillsExtensionReadParams,
  "mcp/widget/list": WidgetListParams,
  "mcp/widget/tools": WidgetToolsParams,
  "mcp/widget/read": WidgetReadParams,
  "mcp/widget/callTool": WidgetCallToolParams,
  "mcp/widget/readResource": WidgetReadResourceParams
} as const
/** A method the app-server answers. */
export type Method = keyof typeof methods
/** The decoded params of a method. */
export type Params<M extends Method> = (typeof methods)[M]["Type"]

/** Method name -> result schema (same keys as {@link methods}). */
export const results = {
  initialize: InitializeResult,
  "thread/start": ThreadStartResult,
  "thread/resume": ThreadResumeResult,
  "thread/list": ThreadListResult,
  "thread/delete": ThreadDeleteResult,
  "turn/start": TurnStartResult,
  "tool/list": ToolListResult,
  "tool/call": ToolCallResult,
  "mcp/resource/read": McpResourceReadResult,
  "mcpServer/resource/read": McpResourceReadResult,
  "mcp/resource/complete": McpResourceCompleteResult,
  "mcp/resource/search": McpResourceSearchResult,
  "mcp/resource/subscribe": McpResourceSubscribeResult,
  "mcp/resource/unsubscribe": McpResourceUnsubscribeResult,
  "thread/rollback": ThreadRollbackResult,
  "thread/compact": ThreadCompactResult,
  "config/mcpServer/reload": ConfigReloadResult,
  "mcpServer/list": McpServerListResult,
  "mcpServer/oauth/login": McpServerOAuthLoginResult,
  "skills/list": SkillsListResult,
  "skills/read": SkillsReadResult,
  "skills/extension/list": SkillsExtensionListResult,
  "skills/extension/read": SkillsExtensionReadResult,
  "mcp/widget/list": WidgetListResult,
  "mcp/widget/tools": WidgetToolsResult,
  "mcp/widget/read": WidgetReadResult,
  "mcp/widget/callTool": WidgetCallToolResult,
  "mcp/widget/readResource": WidgetReadResourceResult
} as const satisfies Record<Method, Schema.Schema.Any>
/** The result of a method. */
export type Result<M extends Method> = (typeof results)[M]["Type"]

/** True when `method` is one the app-server answers. */
export const isMethod = (method: string): method is Method => Object.hasOwn(methods, method)
