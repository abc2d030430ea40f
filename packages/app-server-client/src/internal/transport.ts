/** The shape of a connection to an app-server, shared by the transports (public as `Transport.Transport`). */
import type { Effect, Queue } from "effect"
import type { ClientError } from "../Errors.js"

/** What a transport delivers: each message's JSON text in order, then one `closed` with the reason. */
export type Incoming =
  | { readonly _tag: "message"; readonly text: string }
  | { readonly _tag: "closed"; readonly reason: string }

/** A connection to a JSON-RPC peer, one message at a time. */
export interface Transport {
  /** Sends one message (its JSON text). Fails with reason `closed` once the connection is gone. */
  readonly send: (text: string) => Effect.Effect<void, ClientError>
  /** As {@link send}, at once and outside Effect: false when the connection is gone (nothing was sent). */
  readonly unsafeSend: (text: string) => boolean
  /** Everything received, in order, then one `closed`. */
  readonly incoming: Queue.Dequeue<Incoming>
  /** Names the peer in error messages (`process 1234`, `ws://127.0.0.1:4500`). */
  readonly peer: string
  /** The child's process id (stdio only). */
  readonly pid: number | undefined
  /** Waits for the child's exit (stdio only): its code, or the signal that ended it. */
  readonly exit: Effect.Effect<ProcessExit> | undefined
}

/** How a child process ended. */
export interface ProcessExit {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}
