/**
 * The protocol matrix: one contract suite run against many real servers (v2 and v1 SDK servers,
 * stdio and HTTP, both protocol eras) through the three model tools. Every server of one run
 * starts once, concurrently, in one connection set shared by the cases.
 */
import { assert, layer } from "@effect/vitest"
import { Config } from "@mcp-resources/protocol"
import { McpTransport, ResourceClient, type ServerEntry } from "@mcp-resources/resource-client"
import { Context, Effect, Layer, type Scope } from "effect"
import { LifecycleSink, ToolHandlers } from "../src/index.js"

/** What a server of the matrix serves: the v2 fixture catalog (`v2Catalog`) or the same catalog on a v1 fixture. */
export interface Expected {
  /** The revision `mcpServer/list` shows once it is ready. */
  readonly protocolVersion: string
  /** The model-facing output of a read of the catalog's missing uri. */
  readonly notFound: string
  /** Whether the server answers the catalog's input uri with `input_required` (2026-07-28 only). */
  readonly inputRequired: boolean
  /** The fields a read result carries before `contents` and after it (a v2 server on 2026-07-28 stamps some). */
  readonly readFields: { readonly before: string; readonly after: string }
}

/** One server of the matrix: how to start it (scoped) and what it must answer. */
export interface MatrixCase {
  readonly name: string
  readonly title: string
  readonly start: Effect.Effect<ServerEntry.ServerEntry, never, Scope.Scope>
  readonly expected: Expected
}

/** Defaults of a matrix entry (a loaded 2-core machine: generous start-up). */
export const entryDefaults = { enabled: true, startupTimeoutSec: 60, toolTimeoutSec: 30, maxMessageBytes: 67108864 }

class Matrix extends Context.Tag("test/Matrix")<
  Matrix,
  { readonly ctx: ToolHandlers.ToolContext; readonly client: ResourceClient.Service }
>() {}

const matrixLayer = (cases: ReadonlyArray<Pick<MatrixCase, "start">>) =>
  Layer.scoped(
    Matrix,
    Effect.gen(function* () {
      const servers = yield* Effect.forEach(cases, (c) => c.start, { concurrency: "unbounded" })
      const config = Config.empty
      const client = yield* ResourceClient.make({ config, servers }).pipe(Effect.provide(McpTransport.layer))
      const set = yield* client.acquire
      yield* set.awaitAllSettled
      return { client, ctx: { set, config, orchestratorMcpEnabled: true, truncation: config.truncation } }
    })
  ).pipe(Layer.merge(LifecycleSink.layerNoop))

const call = (name: string, args: unknown) =>
  Effect.flatMap(Matrix, ({ ctx }) =>
    ToolHandlers.callTool(ctx, { callId: "c-1", name, arguments: JSON.stringify(args) })
  )

/** The server's entries in an output, with `srv` standing for the server's name. */
const as = (server: string, text: string) => text.replaceAll('"server":"srv"', `"server":"${server}"`)

const doc1 = '{"server":"srv","uri":"v2://doc/1","name":"doc-1"}'
const doc2 = '{"server":"srv","uri":"v2://doc/2","name":"doc-2","mimeType":"text/plain"}'
const blob1 = '{"server":"srv","uri":"v2://blob/1","name":"blob-1","mimeType":"application/octet-stream"}'

/** Runs the contract against every case, sharing one connection set. */
export const matrixSuite = (title: string, cases: ReadonlyArray<MatrixCase>) =>
  layer(matrixLayer(cases), { timeout: "120 seconds" })(title, (it) => {
    // one aggregate call covers every server: each gets all its pages, the empty-string cursor included
    it.effect("the aggregate lists walk every page of every server, in order", () =>
      Effect.gen(function* () {
        const resources = yield* call("list_mcp_resources", {})
        const templates = yield* call("list_mcp_resource_templates", {})
        assert.isTrue(resources.success && templates.success)
        const listed = (JSON.parse(resources.output) as { resources: Array<{ server: string }> }).resources
        const listedTemplates = (JSON.parse(templates.output) as { resourceTemplates: Array<{ server: string }> })
          .resourceTemplates
        for (const { name } of cases) {
          assert.strictEqual(
            JSON.stringify(listed.filter((r) => r.server === name)),
            as(name, `[${doc1},${doc2},${blob1}]`),
            name
          )
          assert.strictEqual(
            JSON.stringify(listedTemplates.filter((t) => t.server === name)),
            as(
              name,
              '[{"server":"srv","uriTemplate":"v2://doc/{id}","name":"doc"},{"server":"srv","uriTemplate":"v2://blob/{id}","name":"blob"}]'
            ),
            name
          )
        }
      })
    )
    for (const c of cases) {
      const server = c.name
      const { before, after } = c.expected.readFields
      it.effect(`${c.title}: ready, with the negotiated revision`, () =>
        Effect.gen(function* () {
          const { client } = yield* Matrix
          const status = (yield* client.servers).find((s) => s.name === server)
          assert.deepStrictEqual(status, {
            name: server,
            transport: status?.transport ?? "stdio",
            // every matrix server over HTTP speaks streamable HTTP (legacy HTTP+SSE has its own suite)
            ...(status?.transport === "http" ? { httpTransport: "streamable" } : {}),
            status: "ready",
            protocolVersion: c.expected.protocolVersion
          })
        })
      )
      it.effect(`${c.title}: a single-server list is one page; a cursor fetches the next`, () =>
        Effect.gen(function* () {
          assert.deepStrictEqual(yield* call("list_mcp_resources", { server }), {
            // the codex profile leaves a blank next cursor out of the model's payload
            output: as(server, `{"server":"srv","resources":[${doc1}]}`),
            success: true
          })
          assert.deepStrictEqual(yield* call("list_mcp_resources", { server, cursor: "p3" }), {
            output: as(server, `{"server":"srv","resources":[${blob1}]}`),
            success: true
          })
        })
      )
      it.effect(`${c.title}: templates, page by page`, () =>
        Effect.gen(function* () {
          assert.deepStrictEqual(yield* call("list_mcp_resource_templates", { server }), {
            output: as(
              server,
              '{"server":"srv","resourceTemplates":[{"server":"srv","uriTemplate":"v2://doc/{id}","name":"doc"}],"nextCursor":"t2"}'
            ),
            success: true
          })
          assert.deepStrictEqual(yield* call("list_mcp_resource_templates", { server, cursor: "t2" }), {
            output: as(
              server,
              '{"server":"srv","resourceTemplates":[{"server":"srv","uriTemplate":"v2://blob/{id}","name":"blob"}]}'
            ),
            success: true
          })
        })
      )
      it.effect(`${c.title}: text and blob reads; a blob that is not base64 is refused`, () =>
        Effect.gen(function* () {
          assert.deepStrictEqual(yield* call("read_mcp_resource", { server, uri: "v2://doc/1" }), {
            output: `{"server":"${server}","uri":"v2://doc/1",${before}"contents":[{"uri":"v2://doc/1","mimeType":"text/plain","text":"first document"}]${after}}`,
            success: true
          })
          assert.deepStrictEqual(yield* call("read_mcp_resource", { server, uri: "v2://blob/1" }), {
            output: `{"server":"${server}","uri":"v2://blob/1",${before}"contents":[{"uri":"v2://blob/1","mimeType":"application/octet-stream","blob":"AAECAw=="}]${after}}`,
            success: true
          })
          assert.deepStrictEqual(yield* call("read_mcp_resource", { server, uri: "v2://bad-blob" }), {
            output: `resources/read failed: resources/read failed for \`${server}\` (v2://bad-blob): invalid resources/read result at contents.0.blob: is not valid base64`,
            success: false
          })
        })
      )
      it.effect(`${c.title}: a read of a missing resource renders the server's error`, () =>
        Effect.gen(function* () {
          assert.deepStrictEqual(yield* call("read_mcp_resource", { server, uri: "v2://missing" }), {
            output: `resources/read failed: resources/read failed for \`${server}\` (v2://missing): ${c.expected.notFound}`,
            success: false
          })
        })
      )
      if (c.expected.inputRequired) {
        it.effect(`${c.title}: a read answered input_required names the input the server wanted`, () =>
          Effect.gen(function* () {
            assert.deepStrictEqual(yield* call("read_mcp_resource", { server, uri: "v2://needs-input" }), {
              output: `resources/read failed: resources/read failed for \`${server}\` (v2://needs-input): resources/read needs input the client cannot provide yet: the server asked for confirm (elicitation/create)`,
              success: false
            })
          })
        )
      }
    }
  })

/** One `@modelcontextprotocol/server-everything` of the matrix: how to start it and the revision it negotiates. */
export interface EverythingCase {
  readonly name: string
  readonly title: string
  readonly start: Effect.Effect<ServerEntry.ServerEntry, never, Scope.Scope>
  readonly protocolVersion: string
}

interface Listed {
  readonly server: string
  readonly uri: string
  readonly name: string
}

const parse = <A>(output: string): A => JSON.parse(output) as A

/**
 * The contract against `@modelcontextprotocol/server-everything`, whose catalog is partly generated
 * (its documents come from its own files, its reads carry a timestamp): what a user sees is asserted —
 * the pages a single-server list walks are the aggregate list's entries, its two dynamic templates are
 * listed, text and blob reads answer the uri asked for, a missing resource fails with the server's error.
 */
export const everythingSuite = (title: string, cases: ReadonlyArray<EverythingCase>) =>
  layer(matrixLayer(cases), { timeout: "120 seconds" })(title, (it) => {
    for (const c of cases) {
      const server = c.name
      it.effect(`${c.title}: ready, with the negotiated revision`, () =>
        Effect.gen(function* () {
          const { client } = yield* Matrix
          const status = (yield* client.servers).find((s) => s.name === server)
          assert.deepStrictEqual(status, {
            name: server,
            transport: status?.transport ?? "stdio",
            // every matrix server over HTTP speaks streamable HTTP (legacy HTTP+SSE has its own suite)
            ...(status?.transport === "http" ? { httpTransport: "streamable" } : {}),
            status: "ready",
            protocolVersion: c.protocolVersion
          })
        })
      )
      it.effect(`${c.title}: the single-server pages, walked by cursor, are the aggregate list's entries`, () =>
        Effect.gen(function* () {
          const aggregate = yield* call("list_mcp_resources", {})
          assert.isTrue(aggregate.success, aggregate.output)
          const listed = parse<{ resources: Array<Listed> }>(aggregate.output).resources.filter(
            (r) => r.server === server
          )
          assert.isAbove(listed.length, 0)
          const walked: Array<Listed> = []
          let cursor: string | undefined
          for (let page = 0; page < 100; page++) {
            const output = yield* call("list_mcp_resources", cursor === undefined ? { server } : { server, cursor })
            assert.isTrue(output.success, output.output)
            const body = parse<{ server: string; resources: Array<Listed>; nextCursor?: string }>(output.output)
            assert.strictEqual(body.server, server)
            walked.push(...body.resources)
            cursor = body.nextCursor
            if (cursor === undefined) break
          }
          assert.isUndefined(cursor, "the pages end")
          assert.deepStrictEqual(walked, listed)
          for (const entry of listed) assert.match(entry.uri, /^demo:\/\//)
        })
      )
      it.effect(`${c.title}: its two dynamic templates are listed, on the single-server and the aggregate list`, () =>
        Effect.gen(function* () {
          const single = yield* call("list_mcp_resource_templates", { server })
          const aggregate = yield* call("list_mcp_resource_templates", {})
          assert.isTrue(single.success && aggregate.success, `${single.output} ${aggregate.output}`)
          type Template = { readonly server: string; readonly uriTemplate: string }
          const fromSingle = parse<{ resourceTemplates: Array<Template> }>(single.output).resourceTemplates
          const fromAggregate = parse<{ resourceTemplates: Array<Template> }>(
            aggregate.output
          ).resourceTemplates.filter((t) => t.server === server)
          for (const templates of [fromSingle, fromAggregate]) {
            assert.includeMembers(
              templates.map((t) => t.uriTemplate),
              ["demo://resource/dynamic/text/{resourceId}", "demo://resource/dynamic/blob/{resourceId}"]
            )
          }
        })
      )
      it.effect(`${c.title}: a listed document, a text and a blob read answer the uri asked for`, () =>
        Effect.gen(function* () {
          type Read = {
            readonly server: string
            readonly uri: string
            readonly contents: Array<{ uri: string; mimeType?: string; text?: string; blob?: string }>
          }
          const read = (uri: string) =>
            Effect.map(call("read_mcp_resource", { server, uri }), (output) => {
              assert.isTrue(output.success, output.output)
              const body = parse<Read>(output.output)
              assert.strictEqual(body.server, server)
              assert.strictEqual(body.uri, uri)
              assert.strictEqual(body.contents[0]?.uri, uri)
              return body.contents[0]!
            })
          const listed = parse<{ resources: Array<Listed> }>((yield* call("list_mcp_resources", {})).output).resources
          const document = listed.find((r) => r.server === server)!
          assert.isAbove((yield* read(document.uri)).text?.length ?? 0, 0)
          const text = yield* read("demo://resource/dynamic/text/1")
          assert.match(text.text ?? "", /^Resource 1: /)
          const blob = yield* read("demo://resource/dynamic/blob/2")
          assert.isUndefined(blob.text)
          assert.match(Buffer.from(blob.blob ?? "", "base64").toString("utf8"), /^Resource 2: /)
        })
      )
      it.effect(`${c.title}: a read of a missing resource renders the server's error`, () =>
        Effect.gen(function* () {
          const uri = "demo://resource/static/document/no-such-document.md"
          const output = yield* call("read_mcp_resource", { server, uri })
          assert.isFalse(output.success)
          assert.strictEqual(
            output.output,
            `resources/read failed: resources/read failed for \`${server}\` (${uri}): Mcp error: -32602: Resource ${uri} not found`
          )
        })
      )
    }
  })
