/** Types of `contractServer.mjs` (the server of the transport contract suite). */
import type { Transport } from "@modelcontextprotocol/client"

/** `legacy`: the `initialize` era only; `modern`: 2026-07-28 only. */
export type Era = "legacy" | "modern"

type Page<K extends string, A> = { readonly [key in K]: ReadonlyArray<A> } & { readonly nextCursor?: string }

/** What every contract server serves. */
export declare const catalog: {
  readonly resourcePages: {
    readonly first: Page<"resources", { uri: string; name: string; mimeType: string }>
    readonly p2: Page<"resources", { uri: string; name: string; mimeType: string }>
  }
  readonly templatePages: {
    readonly first: Page<"resourceTemplates", { uriTemplate: string; name: string }>
    readonly t2: Page<"resourceTemplates", { uriTemplate: string; name: string }>
  }
  readonly reads: Readonly<Record<"contract://text" | "contract://blob", { readonly contents: ReadonlyArray<object> }>>
  readonly error: { readonly code: number; readonly message: string }
}

/** An in-memory fixture: each `connect()` is a new connection. */
export declare const connectContractInMemory: (era: Era) => {
  readonly connect: () => Promise<Transport>
  readonly close: () => Promise<void>
}

/** The command that serves the catalog over stdio on one era. */
export declare const contractStdioCommand: (era: Era) => { command: string; args: Array<string> }

/** The catalog over streamable HTTP in this process. */
export declare const startContractHttp: (
  era: Era
) => Promise<{ readonly url: string; readonly close: () => Promise<void> }>

/** The catalog over the legacy HTTP+SSE transport (the `initialize` era only) in this process; `url` is the `/sse` endpoint. */
export declare const startContractSse: () => Promise<{ readonly url: string; readonly close: () => Promise<void> }>
