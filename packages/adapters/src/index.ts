export * as Bridge from "./Bridge.js"
export * as AppServerBinding from "./AppServerBinding.js"
