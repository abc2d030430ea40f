/** @mcp-resources/skills: the skills catalog and reads over the apps server's `mcp/skill` resources. */
export * as Catalog from "./Catalog.js"
export * as Discovery from "./Discovery.js"
export * as SkillResource from "./SkillResource.js"
export * as SkillMessages from "./SkillMessages.js"
export * as Skills from "./Skills.js"
export * as SkillUri from "./SkillUri.js"
export * as ExtensionSkills from "./ExtensionSkills.js"
