import { assert, describe, it } from "@effect/vitest"
import { type FixtureSpec, type InMemoryFixture, widgetAppsSpec, widgetUri } from "@mcp-resources/fixtures"
import { ResourceClient, ServerEntry } from "@mcp-resources/resource-client"
import { Effect } from "effect"
import * as CallScopedRead from "../src/CallScopedRead.js"
import { OriginStore } from "../src/OriginStore.js"
import { appsConfig, appsSpec, serve, setupOf, widget, widgetContents, withClient } from "./utils/apps.js"
import { type ItemOverrides, item, turn } from "./utils/events.js"

const notFound = "originating MCP tool call was not found or did not complete successfully"

/** Records turn `t1` and the completed item `c1` (with `overrides`) in thread `th`. */
const remember = (overrides: ItemOverrides = {}, callId = "c1") =>
  Effect.gen(function* () {
    const store = yield* OriginStore
    yield* store.observe("th", turn("t1"))
    yield* store.observe("th", item(callId, overrides))
  })

const read = (params: Partial<CallScopedRead.ReadForCallParams> = {}, options?: CallScopedRead.Options) =>
  CallScopedRead.readForCall({ threadId: "th", callId: "c1", uri: widget, ...params }, options)

/** The message of a call-scoped read that must fail with an access refusal. */
const refusal = (params: Partial<CallScopedRead.ReadForCallParams> = {}) =>
  Effect.gen(function* () {
    const error = yield* Effect.flip(read(params))
    assert.strictEqual(error._tag, "AccessError")
    return error.message
  })

/** The `_meta` of every `resources/read` the fixture saw, as JSON text. */
const readMetas = (fixture: InMemoryFixture) =>
  fixture.requests
    .filter((r) => r.method === "resources/read")
    .map((r) => JSON.stringify((r.params as { _meta?: unknown } | undefined)?._meta))

/** Serves `spec` as `codex_apps`, records `c1` with `overrides`, and returns the refusal message of a read. */
const refusedWith = (
  spec: FixtureSpec,
  overrides: ItemOverrides = {},
  config = appsConfig(),
  params: Partial<CallScopedRead.ReadForCallParams> = {}
) =>
  Effect.gen(function* () {
    const fixture = yield* serve(spec)
    return yield* withClient(setupOf(fixture, config), Effect.zipRight(remember(overrides), refusal(params)))
  })

/** Reloads the client with a changed `codex_apps` spec (and config). */
const reloadWith = (spec: FixtureSpec, config = appsConfig()) =>
  Effect.gen(function* () {
    const fixture = yield* serve(spec)
    const client = yield* ResourceClient.ResourceClient
    yield* client.reload(setupOf(fixture, config))
    return fixture
  })

describe("CallScopedRead", () => {
  it("exports the nine messages exactly", () => {
    assert.deepStrictEqual(
      [
        CallScopedRead.notFound,
        CallScopedRead.serverUnavailable("codex_apps"),
        CallScopedRead.resourceMismatch,
        CallScopedRead.ambiguousAccount,
        CallScopedRead.toolUnavailable,
        CallScopedRead.connectorMismatch,
        CallScopedRead.linkMismatch,
        CallScopedRead.explicitLinkRequired,
        CallScopedRead.disabledByAppConfiguration
      ],
      [
        notFound,
        "codex_apps MCP server is unavailable",
        "originating MCP tool call does not match the requested resource",
        "originating MCP tool call has ambiguous account selection",
        "originating MCP tool is unavailable",
        "originating MCP tool connector does not match its app context",
        "originating MCP tool link does not match its app context",
        "originating MCP tool requires an explicit account link",
        "originating MCP tool is disabled by app configuration"
      ]
    )
  })

  it("plainReadMeta is exactly the selected connector, without thread or link", () => {
    assert.strictEqual(
      JSON.stringify(CallScopedRead.plainReadMeta("")),
      '{"x-codex-turn-metadata":{"mcp_request_meta":{"selected_connector_ids":[""]}}}'
    )
    assert.strictEqual(
      JSON.stringify(CallScopedRead.plainReadMeta("k", { requestMetaKey: "x-host" })),
      '{"x-host":{"mcp_request_meta":{"selected_connector_ids":["k"]}}}'
    )
  })

  it.scoped("O-27: an unknown call id fails first, even when the apps server is missing", () =>
    withClient(
      { config: appsConfig(), servers: [] },
      Effect.gen(function* () {
        yield* remember()
        assert.strictEqual(yield* refusal({ callId: "zz" }), notFound)
      })
    )
  )

  it.scoped("O-1: a failed tool call has no origin to read for", () =>
    Effect.gen(function* () {
      assert.strictEqual(yield* refusedWith(appsSpec(), { status: "failed" }), notFound)
    })
  )

  it.scoped("O-28: a known call with the apps server not configured is refused as unavailable", () =>
    withClient(
      { config: appsConfig(), servers: [] },
      Effect.gen(function* () {
        yield* remember()
        assert.strictEqual(yield* refusal(), "codex_apps MCP server is unavailable")
      })
    )
  )

  it.scoped("O-28: a known call with the apps server failed at startup is refused as unavailable", () =>
    withClient(
      {
        config: appsConfig(),
        servers: [ServerEntry.memory("codex_apps", () => Promise.reject(new Error("cannot connect")))]
      },
      Effect.gen(function* () {
        yield* remember()
        assert.strictEqual(yield* refusal(), "codex_apps MCP server is unavailable")
      })
    )
  )

  it.scoped("O-28: a disabled apps server is unavailable, and the message names the configured apps server", () =>
    Effect.gen(function* () {
      const fixture = yield* serve(appsSpec())
      const message = yield* withClient(
        { config: appsConfig(), servers: [ServerEntry.memory("codex_apps", fixture.connect, { enabled: false })] },
        Effect.zipRight(remember(), refusal())
      )
      assert.strictEqual(message, "codex_apps MCP server is unavailable")
      const other = yield* withClient(
        {
          config: { ...appsConfig(), apps: { serverName: "apps", connectors: {} } },
          servers: [ServerEntry.memory("codex_apps", fixture.connect)]
        },
        Effect.zipRight(remember({ server: "apps" }), refusal())
      )
      assert.strictEqual(other, "apps MCP server is unavailable")
    })
  )

  it.scoped("O-29: a different uri is refused before the ambiguous account", () =>
    Effect.gen(function* () {
      const message = yield* refusedWith(appsSpec(), { arguments: { link_id: "x" } }, appsConfig(), {
        uri: "ui://other"
      })
      assert.strictEqual(message, "originating MCP tool call does not match the requested resource")
    })
  )

  it.scoped("O-29: the uri must match exactly", () =>
    Effect.gen(function* () {
      const message = yield* refusedWith(appsSpec(), {}, appsConfig(), { uri: "ui://w " })
      assert.strictEqual(message, "originating MCP tool call does not match the requested resource")
    })
  )

  it.scoped("O-30: the same uri with an ambiguous account is refused", () =>
    Effect.gen(function* () {
      const message = yield* refusedWith(appsSpec(), { arguments: { link_id: "x" } })
      assert.strictEqual(message, "originating MCP tool call has ambiguous account selection")
    })
  )

  it.scoped("O-31: a tool that is no longer listed after a reload is unavailable", () =>
    Effect.gen(function* () {
      const fixture = yield* serve(appsSpec())
      yield* withClient(
        setupOf(fixture),
        Effect.gen(function* () {
          yield* remember()
          assert.deepStrictEqual(yield* read(), widgetContents)
          yield* reloadWith({ ...appsSpec(), tools: [{ name: "other", _meta: { connector_id: "k" } }] })
          assert.strictEqual(yield* refusal(), "originating MCP tool is unavailable")
        })
      )
    })
  )

  it.scoped("O-32: a tool whose connector changed after a reload does not match its app context", () =>
    Effect.gen(function* () {
      const fixture = yield* serve(appsSpec())
      yield* withClient(
        setupOf(fixture),
        Effect.gen(function* () {
          yield* remember()
          assert.deepStrictEqual(yield* read(), widgetContents)
          yield* reloadWith(appsSpec({ connector_id: "other" }))
          assert.strictEqual(yield* refusal(), "originating MCP tool connector does not match its app context")
        })
      )
    })
  )

  it.scoped("O-32: a tool without a string connector_id does not match", () =>
    Effect.gen(function* () {
      assert.strictEqual(
        yield* refusedWith(appsSpec({ link_id: "k" })),
        "originating MCP tool connector does not match its app context"
      )
      assert.strictEqual(
        yield* refusedWith(appsSpec({ connector_id: ["k"] })),
        "originating MCP tool connector does not match its app context"
      )
    })
  )

  it.scoped("O-33: a tool whose link changed or disappeared after a reload does not match its app context", () =>
    Effect.gen(function* () {
      const fixture = yield* serve(appsSpec({ connector_id: "k", link_id: "L1" }))
      yield* withClient(
        setupOf(fixture),
        Effect.gen(function* () {
          yield* remember({ linkId: "L1" })
          assert.deepStrictEqual(yield* read(), widgetContents)
          yield* reloadWith(appsSpec({ connector_id: "k", link_id: "L2" }))
          assert.strictEqual(yield* refusal(), "originating MCP tool link does not match its app context")
          yield* reloadWith(appsSpec({ connector_id: "k" }))
          assert.strictEqual(yield* refusal(), "originating MCP tool link does not match its app context")
          yield* reloadWith(appsSpec({ connector_id: "k", link_id: "  " }))
          assert.strictEqual(yield* refusal(), "originating MCP tool link does not match its app context")
        })
      )
    })
  )

  it.scoped("O-33: a tool link on a call remembered without one does not match; a blank tool link counts as none", () =>
    Effect.gen(function* () {
      assert.strictEqual(
        yield* refusedWith(appsSpec({ connector_id: "k", link_id: "L1" })),
        "originating MCP tool link does not match its app context"
      )
      const fixture = yield* serve(appsSpec({ connector_id: "k", link_id: " " }))
      const contents = yield* withClient(setupOf(fixture), Effect.zipRight(remember(), read()))
      assert.deepStrictEqual(contents, widgetContents)
    })
  )

  it.scoped("O-34: a tool that requires an explicit link refuses an origin without one", () =>
    Effect.gen(function* () {
      const meta = { connector_id: "k", _codex_apps: { requires_explicit_link_id: true } }
      assert.strictEqual(yield* refusedWith(appsSpec(meta)), "originating MCP tool requires an explicit account link")
      // With a link on both sides the requirement is met.
      const fixture = yield* serve(appsSpec({ ...meta, link_id: "L1" }))
      const contents = yield* withClient(setupOf(fixture), Effect.zipRight(remember({ linkId: "L1" }), read()))
      assert.deepStrictEqual(contents, widgetContents)
    })
  )

  it.scoped("O-35: a connector or tool disabled by app configuration is refused after the catalog checks", () =>
    Effect.gen(function* () {
      const message = "originating MCP tool is disabled by app configuration"
      assert.strictEqual(yield* refusedWith(appsSpec(), {}, appsConfig({ k: { enabled: false, tools: {} } })), message)
      assert.strictEqual(
        yield* refusedWith(appsSpec(), {}, appsConfig({ k: { tools: { t: { enabled: false } } } })),
        message
      )
      // Other connectors' or tools' settings do not apply.
      const fixture = yield* serve(appsSpec())
      const config = appsConfig({ other: { enabled: false, tools: {} }, k: { tools: { u: { enabled: false } } } })
      assert.deepStrictEqual(
        yield* withClient(setupOf(fixture, config), Effect.zipRight(remember(), read())),
        widgetContents
      )
    })
  )

  it.scoped("O-35: the app policy is the latest loaded configuration", () =>
    Effect.gen(function* () {
      const fixture = yield* serve(appsSpec())
      yield* withClient(
        setupOf(fixture),
        Effect.gen(function* () {
          yield* remember()
          assert.deepStrictEqual(yield* read(), widgetContents)
          const client = yield* ResourceClient.ResourceClient
          yield* client.reload(setupOf(fixture, appsConfig({ k: { enabled: false, tools: {} } })))
          assert.strictEqual(yield* refusal(), "originating MCP tool is disabled by app configuration")
        })
      )
    })
  )

  it.scoped("O-36: an app-only tool still authorizes the read", () =>
    Effect.gen(function* () {
      const fixture = yield* serve(appsSpec({ connector_id: "k", ui: { visibility: ["app"] } }))
      const contents = yield* withClient(setupOf(fixture), Effect.zipRight(remember(), read()))
      assert.deepStrictEqual(contents, widgetContents)
    })
  )

  it.scoped("O-37: the server sees exactly the thread id, the origin's connector and its link", () =>
    Effect.gen(function* () {
      const fixture = yield* serve(appsSpec({ connector_id: "k", link_id: "L1" }))
      yield* withClient(
        setupOf(fixture),
        Effect.gen(function* () {
          yield* remember({ linkId: "L1" })
          yield* remember({}, "c2")
          const store = yield* OriginStore
          const before = yield* store.state("th")
          assert.deepStrictEqual(yield* read(), widgetContents)
          assert.deepStrictEqual(yield* store.state("th"), before)
        })
      )
      assert.deepStrictEqual(readMetas(fixture), [
        '{"threadId":"th","x-codex-turn-metadata":{"mcp_request_meta":{"selected_connector_ids":["k"],"link_id":"L1"}}}'
      ])
      const request = fixture.requests.find((r) => r.method === "resources/read")
      assert.strictEqual((request?.params as { uri?: string } | undefined)?.uri, widget)
    })
  )

  it.scoped("O-37: without a link the server sees link_id null", () =>
    Effect.gen(function* () {
      const fixture = yield* serve(appsSpec())
      yield* withClient(setupOf(fixture), Effect.zipRight(remember(), read()))
      assert.deepStrictEqual(readMetas(fixture), [
        '{"threadId":"th","x-codex-turn-metadata":{"mcp_request_meta":{"selected_connector_ids":["k"],"link_id":null}}}'
      ])
    })
  )

  it.scoped("the requestMetaKey option names the scope key", () =>
    Effect.gen(function* () {
      const fixture = yield* serve(appsSpec())
      yield* withClient(setupOf(fixture), Effect.zipRight(remember(), read({}, { requestMetaKey: "x-host-meta" })))
      assert.deepStrictEqual(readMetas(fixture), [
        '{"threadId":"th","x-host-meta":{"mcp_request_meta":{"selected_connector_ids":["k"],"link_id":null}}}'
      ])
    })
  )

  describe("check order: with several checks failing, the first one is the result", () => {
    const cases: ReadonlyArray<{
      readonly name: string
      readonly spec: FixtureSpec
      readonly overrides?: ItemOverrides
      readonly config?: ReturnType<typeof appsConfig>
      readonly uri?: string
      readonly expected: string
    }> = [
      {
        name: "2 before 3",
        spec: appsSpec(),
        overrides: { server: "codex_apps" },
        uri: "ui://other",
        expected: "codex_apps MCP server is unavailable"
      },
      {
        name: "4 before 5",
        spec: { ...appsSpec(), tools: [] },
        overrides: { arguments: { link_id: "x" } },
        expected: "originating MCP tool call has ambiguous account selection"
      },
      {
        name: "5 before 9 (a disabled tool is still in the catalog, a missing one is unavailable)",
        spec: { ...appsSpec(), tools: [] },
        config: appsConfig({ k: { enabled: false, tools: {} } }),
        expected: "originating MCP tool is unavailable"
      },
      {
        name: "6 before 7 and 9",
        spec: appsSpec({ connector_id: "other", link_id: "L2" }),
        overrides: { linkId: "L1" },
        config: appsConfig({ k: { enabled: false, tools: {} } }),
        expected: "originating MCP tool connector does not match its app context"
      },
      {
        name: "7 before 8",
        spec: appsSpec({ connector_id: "k", link_id: "L2", _codex_apps: { requires_explicit_link_id: true } }),
        expected: "originating MCP tool link does not match its app context"
      },
      {
        name: "8 before 9",
        spec: appsSpec({ connector_id: "k", _codex_apps: { requires_explicit_link_id: true } }),
        config: appsConfig({ k: { tools: { t: { enabled: false } } } }),
        expected: "originating MCP tool requires an explicit account link"
      }
    ]
    for (const c of cases) {
      it.scoped(c.name, () =>
        Effect.gen(function* () {
          if (c.name.startsWith("2 before 3")) {
            // The apps server is missing from the set (only another server is configured).
            const fixture = yield* serve(c.spec)
            const message = yield* withClient(
              { config: appsConfig(), servers: [ServerEntry.memory("srv", fixture.connect)] },
              Effect.zipRight(remember(c.overrides), refusal({ uri: c.uri ?? widget }))
            )
            assert.strictEqual(message, c.expected)
            return
          }
          const message = yield* refusedWith(c.spec, c.overrides ?? {}, c.config ?? appsConfig(), {
            uri: c.uri ?? widget
          })
          assert.strictEqual(message, c.expected)
        })
      )
    }
  })

  describe("widget flow (acceptance section 10)", () => {
    it.scoped("W-2: each origin reads the widget with its own app and account scope", () =>
      Effect.gen(function* () {
        const fixture = yield* serve(widgetAppsSpec())
        const [bestBuy, walmart] = yield* withClient(
          setupOf(fixture),
          Effect.gen(function* () {
            const store = yield* OriginStore
            yield* store.observe("th", turn("t1"))
            for (const c of ["best_buy", "walmart"]) {
              yield* store.observe(
                "th",
                item(`${c}-call`, {
                  tool: `${c}_product_search`,
                  connectorId: c,
                  linkId: `link_${c}`,
                  uri: widgetUri,
                  arguments: { query: "tv" }
                })
              )
            }
            const readFor = (callId: string) => CallScopedRead.readForCall({ threadId: "th", callId, uri: widgetUri })
            return [yield* readFor("best_buy-call"), yield* readFor("walmart-call")] as const
          })
        )
        assert.deepStrictEqual(bestBuy, [{ uri: widgetUri, mimeType: "text/html", text: "<html>best_buy</html>" }])
        assert.deepStrictEqual(walmart, [{ uri: widgetUri, mimeType: "text/html", text: "<html>walmart</html>" }])
      })
    )

    it.scoped("a failed read carries the resources/read message chain of the apps server", () =>
      Effect.gen(function* () {
        const fixture = yield* serve({
          name: "codex_apps",
          tools: [{ name: "t", _meta: { connector_id: "best_buy", link_id: "link_other" } }],
          reads: [{ uri: widgetUri, behavior: "widgetScope" }]
        })
        const error = yield* withClient(
          setupOf(fixture),
          Effect.zipRight(
            remember({ connectorId: "best_buy", linkId: "link_other", uri: widgetUri }),
            Effect.flip(read({ uri: widgetUri }))
          )
        )
        assert.strictEqual(error._tag, "ServerError")
        assert.strictEqual(
          error.message,
          "resources/read failed for `codex_apps` (ui://widget/checkout-session.html): Mcp error: -32603: wrong account scope"
        )
      })
    )
  })
})
