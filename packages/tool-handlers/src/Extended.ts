/**
 * What hosts use of the extended profile besides the profile value (Profile.extended): its
 * model-facing messages and window constants, the output budget, a template's variables, and the
 * completion a UI asks for (`mcp/resource/complete`). The profile's tools live in internal modules,
 * one per concept: internal/extended/read.ts, complete.ts, messages.ts, templates.ts, window.ts and
 * hygiene.ts; its rendering is the content pipeline's extended entry (Content.ts); its specs in
 * ToolSpecs.ts; its argument rules in Arguments.ts.
 */
import * as Templates from "./internal/extended/templates.js"

export {
  type CompleteAnswer,
  type CompleteFailure,
  type CompleteQuestion,
  completeArgument,
  completeValues
} from "./internal/extended/complete.js"
export {
  defaultWindowTtlMs,
  messages,
  minWindowBytes,
  notFoundCodes,
  windowReserveBytes
} from "./internal/extended/messages.js"
export { budgetBytes, windowCap } from "./Content.js"

/** The variables a template names, in order (RFC 6570 expressions, modifiers dropped). */
export const templateVariables = (uriTemplate: string): ReadonlyArray<string> => Templates.variablesOf(uriTemplate)
