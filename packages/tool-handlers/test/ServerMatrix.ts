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

const matrixLayer = (cases: ReadonlyArray<MatrixCase>) =>
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
