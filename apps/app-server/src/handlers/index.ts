/** The method table: every method of app-server-protocol.md section 3 except `initialize` (handled per connection). */
import type { ResourceClient } from "@mcp-resources/resource-client"
import type { ResourceSearch } from "@mcp-resources/tool-handlers"
import type { OriginStore } from "@mcp-resources/resource-origins"
import type { ExtensionSkills, Skills } from "@mcp-resources/skills"
import type { AppOptions } from "../AppOptions.js"
import type { Announcer } from "../ConfigReload.js"
import type * as OAuthLogins from "../OAuthLogins.js"
import type { Method } from "../Method.js"
import type { ResourceSubscriptions } from "../ResourceSubscriptions.js"
import type { Threads } from "../Threads.js"
import type { ToolHost } from "../ToolHost.js"
import { configMethods } from "./config.js"
import { oauthMethods } from "./oauth.js"
import { resourceMethods } from "./resources.js"
import { resourceSearchMethods } from "./resourceSearch.js"
import { resourceSubscriptionMethods } from "./resourceSubscriptions.js"
import { resourceTemplateMethods } from "./resourceTemplates.js"
import { skillMethods } from "./skills.js"
import { type SkillsExtensionSubscribers, skillsExtensionMethods } from "./skillsExtension.js"
import { threadMethods } from "./threads.js"
import { toolMethods } from "./tools.js"
import { turnMethods } from "./turns.js"
import { widgetMethods } from "./widgets.js"

const table = {
  ...threadMethods,
  ...turnMethods,
  ...toolMethods,
  ...resourceMethods,
  ...resourceTemplateMethods,
  ...resourceSearchMethods,
  ...resourceSubscriptionMethods,
  ...configMethods,
  ...skillMethods,
  ...oauthMethods,
  ...skillsExtensionMethods,
  ...widgetMethods
}

/** What the handlers need from the main layer. */
export type Environment =
  | Threads
  | ToolHost
  | ResourceClient.ResourceClient
  | ResourceSearch.ResourceSearch
  | OriginStore.OriginStore
  | Skills.Skills
  | ExtensionSkills.ExtensionSkills
  | SkillsExtensionSubscribers
  | ResourceSubscriptions
  | OAuthLogins.OAuthLogins
  | OAuthLogins.Announcer
  | AppOptions
  | Announcer

/** Every method by name (each entry's key is its definition's name: checked when the module loads). */
export const methods: Readonly<Record<string, Method<Environment>>> = table

for (const [name, definition] of Object.entries(methods)) {
  if (definition.name !== name) throw new Error(`method table: ${name} holds the definition of ${definition.name}`)
}
