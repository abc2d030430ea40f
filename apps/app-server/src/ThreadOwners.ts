/**
 * Where a request that a thread owns runs (a method's `owner`, Method.ts: `turn/start`,
 * `thread/rollback`, `thread/compact`, `thread/delete`, `tool/call`, `mcp/widget/callTool`).
 *
 * An app-server alone has no such service: the dispatcher runs each request itself, in the thread's
 * queue. A clustered app-server provides one (Cluster.ts): the request is sent to the instance that
 * owns the thread, which runs it in its own queue (so ordered requests from clients of different
 * instances are serialized there), and the answer comes back here.
 */
import type { AppServer } from "@mcp-resources/protocol"
import { Context, type Effect, type Schema } from "effect"
import type { Connection } from "./Connections.js"

/** A request a thread owns, as the dispatcher received it. */
export interface OwnedRequest {
  readonly method: AppServer.Method
  readonly params: unknown
  readonly threadId: string
  readonly connection: Connection
  /** The method's result schema: what the owner answered is decoded with it. */
  readonly result: Schema.Schema<unknown, unknown>
}

/** The operations of the thread owners. */
export interface Service {
  /**
   * Runs the request where its thread is owned and answers with its result (a failure as the owner
   * answered it). `here` runs it in this process instead, for a thread only this process holds (an
   * ephemeral one).
   */
  readonly run: (request: OwnedRequest, here: Effect.Effect<unknown, unknown>) => Effect.Effect<unknown, unknown>
}

/** The thread owners; only a clustered app-server has one. */
export class ThreadOwners extends Context.Tag("@mcp-resources/app-server/ThreadOwners")<ThreadOwners, Service>() {}
