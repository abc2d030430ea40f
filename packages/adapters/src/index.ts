export * as Bridge from "./Bridge.js"
