/**
 * The one core the framework modules share: a source of tools (a thread binding in this process, or a
 * thread of an app-server) listed as framework-neutral {@link Bridge.BridgeTool}s. Each framework module
 * wraps those in its tool type once, whatever the source.
 */
import * as AppServerBinding from "../AppServerBinding.js"
import * as Bridge from "../Bridge.js"

/** What an adapter's `resourceTools` takes. */
export type Source = Bridge.Binding | AppServerBinding.AppServerBinding

/** The source's current tools. */
export const listTools = (source: Source): Promise<ReadonlyArray<Bridge.BridgeTool>> =>
  AppServerBinding.isAppServerBinding(source) ? AppServerBinding.listTools(source) : Bridge.listTools(source)
