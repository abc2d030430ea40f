import { assert, describe, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import * as Config from "../src/Config.js"

const errorOf = (text: string, file: string): string => {
  const result = Config.parse(text, file)
  if (Either.isRight(result)) throw new Error(`expected ${file} to be refused`)
  return result.left.message
}
const ok = (text: string, file: string): Config.Config => {
  const result = Config.parse(text, file)
  if (Either.isLeft(result)) throw new Error(result.left.message)
  return result.right
}

describe("Config", () => {
  it("a parsed config is a value of the Config schema its type is derived from, servers and defaults included", () => {
    const config = ok(
      [
        'hooks.before_tool = [{ command = "audit", matcher = "^read" }]',
        "[search]",
        "[widgets]",
        "page_port = 8080",
        "[mcp_servers.local]",
        'command = "node"',
        "[mcp_servers.remote]",
        'url = "https://example.com/mcp"',
        'oauth_client_id = "app"',
        'oauth_grant = "client_credentials"',
        'oauth_client_auth = "private_key_jwt"',
        'oauth_private_key_file = "key.pem"',
        'protocol_version = "legacy"',
        "[mcp_servers.remote.resources]",
        'deny = ["secret://*"]'
      ].join("\n"),
      "c.toml"
    )
    const check = Schema.validateEither(Config.Config, { onExcessProperty: "error" })
    for (const value of [config, Config.empty]) {
      const checked = check(value)
      assert.isTrue(Either.isRight(checked), Either.isLeft(checked) ? checked.left.message : "")
    }
    assert.deepStrictEqual(config.hooks, {
      beforeTool: [{ matcher: "^read", command: "audit", args: [], timeoutSec: Config.hookDefaultTimeoutSec }],
      afterTool: []
    })
    assert.deepStrictEqual(config.search, Config.searchDefaults)
    assert.deepStrictEqual(config.widgets, { ...Config.widgetsDefaults, pagePort: 8080 })
  })

  it("reads the TOML form with defaults applied and servers sorted by name", () => {
    const config = ok(
      [
        "[mcp_servers.zeta]",
        'url = "http://127.0.0.1:3001/mcp"',
        'bearer_token_env_var = "TOKEN"',
        'http_headers = { "X-Name" = "value" }',
        "[mcp_servers.alpha]",
        'command = "node"',
        'args = ["server.js"]',
        "tool_timeout_sec = 1",
        "enabled = false",
        "[orchestrator.mcp]",
        "enabled = false",
        "[apps]",
        'server_name = "apps"',
        "[apps.connectors.k.tools.t]",
        "enabled = false",
        "[truncation]",
        'mode = "bytes"',
        "limit = 8000",
        "[persistence]",
        'driver = "memory"'
      ].join("\n"),
      "/etc/mcp.toml"
    )
    assert.deepStrictEqual(
      config.mcpServers.map((s) => s.name),
      ["alpha", "zeta"]
    )
    assert.deepStrictEqual(config.mcpServers[0], {
      name: "alpha",
      transport: { _tag: "stdio", command: "node", args: ["server.js"], env: {} },
      enabled: false,
      startupTimeoutSec: 10,
      toolTimeoutSec: 1,
      maxMessageBytes: 67108864
    })
    assert.deepStrictEqual(config.mcpServers[1]?.transport, {
      _tag: "http",
      url: "http://127.0.0.1:3001/mcp",
      bearerTokenEnvVar: "TOKEN",
      httpHeaders: { "X-Name": "value" }
    })
    assert.deepStrictEqual(config.orchestrator, { mcpEnabled: false, skillsEnabled: true })
    assert.deepStrictEqual(config.apps, { serverName: "apps", connectors: { k: { tools: { t: { enabled: false } } } } })
    assert.deepStrictEqual(config.truncation, { mode: "bytes", limit: 8000 })
    assert.deepStrictEqual(config.persistence, { driver: "memory" })
  })

  it("reads the JSON form with the same structure", () => {
    const config = ok('{"mcp_servers":{"srv":{"command":"node","startup_timeout_sec":86400}}}', "c.json")
    assert.strictEqual(config.mcpServers[0]?.startupTimeoutSec, 86400)
    assert.deepStrictEqual(ok("{}", "c.json"), Config.empty)
  })

  it("reads a desktop mcpServers object with stdio, http and streamable-http entries", () => {
    const config = ok(
      JSON.stringify({
        mcpServers: {
          local: { command: "npx", args: ["-y", "x"], env: { A: "1" }, cwd: "/tmp" },
          typed: { type: "stdio", command: "node" },
          remote: { type: "streamable-http", url: "http://127.0.0.1:1/mcp", headers: { Authorization: "x" } },
          plain: { type: "http", url: "https://example.com/mcp" }
        }
      }),
      "desktop.json"
    )
    assert.deepStrictEqual(
      config.mcpServers.map((s) => [s.name, s.transport._tag]),
      [
        ["local", "stdio"],
        ["plain", "http"],
        ["remote", "http"],
        ["typed", "stdio"]
      ]
    )
    assert.deepStrictEqual(config.mcpServers[0]?.transport, {
      _tag: "stdio",
      command: "npx",
      args: ["-y", "x"],
      env: { A: "1" },
      cwd: "/tmp"
    })
    assert.deepStrictEqual(config.mcpServers[2]?.transport, {
      _tag: "http",
      url: "http://127.0.0.1:1/mcp",
      httpHeaders: { Authorization: "x" }
    })
  })

  const refused: Array<[string, string, string]> = [
    ["d.json", '{"mcpServers":{"s":{"type":"sse","command":"x"}}}', "d.json: mcpServers.s.type: `sse` requires `url`"],
    ["c.toml", '[mcp_servers.s]\ntype = "sse"\ncommand = "x"', "c.toml: mcp_servers.s.type: `sse` requires `url`"],
    [
      "c.toml",
      '[mcp_servers.s]\ntype = "stdio"\nurl = "http://x"',
      "c.toml: mcp_servers.s.type: `stdio` requires `command`"
    ],
    [
      "c.toml",
      '[mcpServers.s]\ncommand = "x"',
      "c.toml: mcpServers: is the JSON form of other hosts' files; a TOML file names servers in `[mcp_servers.NAME]`"
    ],
    [
      "d.json",
      '{"mcpServers":{},"servers":{}}',
      "d.json: servers: a config may hold `mcpServers` or `servers`, not both"
    ],
    [
      "d.json",
      '{"mcp_servers":{},"mcpServers":{}}',
      "d.json: mcpServers: a config may hold `mcp_servers` or `mcpServers`, not both"
    ],
    [
      "c.toml",
      '[mcp_servers."bad name"]\ncommand = "node"',
      "c.toml: mcp_servers.bad name: server names must match [A-Za-z0-9_-]+"
    ],
    [
      "d.json",
      '{"mcpServers":{"a.b":{"command":"x"}}}',
      "d.json: mcpServers.a.b: server names must match [A-Za-z0-9_-]+"
    ],
    [
      "c.toml",
      '[mcp_servers.srv]\ncommand = "node"\ntool_timeout_sec = 0',
      "c.toml: mcp_servers.srv.tool_timeout_sec: must be a number of seconds with 0 < t <= 86400"
    ],
    [
      "c.toml",
      '[mcp_servers.srv]\ncommand = "node"\nstartup_timeout_sec = 86401',
      "c.toml: mcp_servers.srv.startup_timeout_sec: must be a number of seconds with 0 < t <= 86400"
    ],
    [
      "c.json",
      '{"mcp_servers":{"s":{"url":"http://x","tool_timeout_sec":"5"}}}',
      'c.json: mcp_servers.s.tool_timeout_sec: expected number, got "5"'
    ],
    ["c.toml", '[mcp_servers.srv]\ncommand = "node"\nfoo = 1', "c.toml: mcp_servers.srv.foo: unknown key"],
    ["c.toml", "bogus = 1", "c.toml: bogus: unknown key"],
    ["d.json", '{"mcpServers":{"s":{"command":"x","foo":1}}}', "d.json: mcpServers.s.foo: unknown key"],
    [
      "c.toml",
      "[mcp_servers.srv]",
      "c.toml: mcp_servers.srv: exactly one of `command` (stdio) or `url` (streamable HTTP) must be set"
    ],
    [
      "d.json",
      '{"mcpServers":{"s":{"type":"stdio","url":"http://x"}}}',
      "d.json: mcpServers.s.type: `stdio` requires `command`"
    ],
    [
      "c.json",
      '{"mcp_servers":{"s":{"url":"ftp://x"}}}',
      'c.json: mcp_servers.s.url: must be an http:// or https:// URL, got "ftp://x"'
    ],
    // credentials in a server URL are refused, naming the server and where they go; never shown
    [
      "c.toml",
      '[mcp_servers.docs]\nurl = "https://alice:s3cr3t-pw@mcp.example/mcp"',
      "c.toml: mcp_servers.docs.url: must not carry credentials (user:password@), which would be shown wherever the URL is; send them in `http_headers` (e.g. an Authorization header)"
    ],
    [
      "d.json",
      '{"mcpServers":{"docs":{"url":"https://alice:s3cr3t-pw@mcp.example/mcp"}}}',
      "d.json: mcpServers.docs.url: must not carry credentials (user:password@), which would be shown wherever the URL is; send them in `headers` (e.g. an Authorization header)"
    ],
    [
      "v.json",
      '{"servers":{"docs":{"type":"http","url":"http://token-only@127.0.0.1:9/mcp"}}}',
      "v.json: servers.docs.url: must not carry credentials (user:password@), which would be shown wherever the URL is; send them in `headers` (e.g. an Authorization header)"
    ],
    [
      "c.json",
      '{"mcp_servers":{"s":{"url":"ftp://x/?token=s3cr3t-pw"}}}',
      'c.json: mcp_servers.s.url: must be an http:// or https:// URL, got "ftp://x/?token=REDACTED"'
    ],
    // `env` and header values may be secrets: the key and the expected type, never the value.
    [
      "c.toml",
      '[mcp_servers.srv]\ncommand = "node"\nenv = { TOKEN = ["s3cret"] }',
      "c.toml: mcp_servers.srv.env.TOKEN: expected string (the value is not shown)"
    ],
    [
      "c.toml",
      '[mcp_servers.srv]\ncommand = "node"\nenv = "TOKEN=s3cret"',
      "c.toml: mcp_servers.srv.env: expected { readonly [x: string]: string } (the value is not shown)"
    ],
    [
      "c.json",
      '{"mcp_servers":{"s":{"url":"http://x","http_headers":{"Authorization":7}}}}',
      "c.json: mcp_servers.s.http_headers.Authorization: expected string (the value is not shown)"
    ],
    [
      "d.json",
      '{"mcpServers":{"s":{"url":"http://x","headers":"Bearer s3cret"}}}',
      "d.json: mcpServers.s.headers: expected { readonly [x: string]: string } (the value is not shown)"
    ],
    [
      "c.toml",
      "[cache]\nmax_bytes = -1",
      "c.toml: cache.max_bytes: must be a whole number of bytes with 0 <= n <= 17179869184"
    ],
    [
      "c.toml",
      "[cache]\nmax_bytes = 1.5",
      "c.toml: cache.max_bytes: must be a whole number of bytes with 0 <= n <= 17179869184"
    ],
    ["c.toml", '[cache]\nenabled = "no"', 'c.toml: cache.enabled: expected boolean, got "no"'],
    ["c.toml", "[cache]\nttl = 1", "c.toml: cache.ttl: unknown key"],
    [
      "c.toml",
      "[mcp]\nstartup_concurrency = 0",
      "c.toml: mcp.startup_concurrency: must be a whole number with 1 <= n <= 1024"
    ],
    [
      "c.json",
      '{"mcp":{"threadless_concurrency":2.5}}',
      "c.json: mcp.threadless_concurrency: must be a whole number with 1 <= n <= 1024"
    ],
    [
      "c.toml",
      "[mcp]\nthreadless_wait_sec = 0",
      "c.toml: mcp.threadless_wait_sec: must be a number of seconds with 0 < t <= 86400"
    ],
    ["c.json", "[1]", "c.json: the config must be a table (TOML) or an object (JSON)"],
    ["c.yaml", "x: 1", "c.yaml: the config file name must end in .toml or .json"]
  ]
  for (const [file, text, message] of refused) {
    it(`refuses ${JSON.stringify(text)} with: ${message}`, () => {
      assert.strictEqual(errorOf(text, file), message)
    })
  }

  it("protocol_version is auto, legacy or 2026-07-28; absent leaves the entry without it (auto)", () => {
    const config = ok(
      '[mcp_servers.a]\ncommand = "node"\nprotocol_version = "legacy"\n[mcp_servers.b]\nurl = "http://127.0.0.1:1/mcp"\nprotocol_version = "2026-07-28"\n[mcp_servers.c]\ncommand = "node"\n',
      "c.toml"
    )
    assert.deepStrictEqual(
      config.mcpServers.map((s) => [s.name, s.protocolVersion]),
      [
        ["a", "legacy"],
        ["b", "2026-07-28"],
        ["c", undefined]
      ]
    )
    assert.isFalse("protocolVersion" in config.mcpServers[2]!)
    assert.match(
      errorOf('[mcp_servers.a]\ncommand = "node"\nprotocol_version = "2025-06-18"\n', "c.toml"),
      /protocol_version/
    )
  })

  it("oauth_client_id, oauth_client_secret_env_var and oauth_redirect_port: HTTP only, the port in 1..65535", () => {
    const config = ok(
      '[mcp_servers.t]\nurl = "https://mcp.example/mcp"\noauth_client_id = "cid"\noauth_client_secret_env_var = "T_SECRET"\noauth_redirect_port = 8976\n',
      "c.toml"
    )
    assert.deepStrictEqual(config.mcpServers[0]!.transport, {
      _tag: "http",
      url: "https://mcp.example/mcp",
      httpHeaders: {},
      oauthClientId: "cid",
      oauthClientSecretEnvVar: "T_SECRET",
      oauthRedirectPort: 8976
    })
    assert.strictEqual(
      errorOf('[mcp_servers.s]\ncommand = "node"\noauth_client_id = "cid"\n', "c.toml"),
      "c.toml: mcp_servers.s.oauth_client_id: only applies to streamable HTTP servers (`url`)"
    )
    assert.match(
      errorOf('[mcp_servers.t]\nurl = "https://mcp.example/mcp"\noauth_redirect_port = 70000\n', "c.toml"),
      /^c\.toml: mcp_servers\.t\.oauth_redirect_port: /
    )
  })

  describe("OAuth registration and grants", () => {
    const server = (lines: ReadonlyArray<string>) =>
      ["[mcp_servers.t]", 'url = "https://mcp.example/mcp"', ...lines, ""].join("\n")
    const transport = (lines: ReadonlyArray<string>) => ok(server(lines), "c.toml").mcpServers[0]!.transport
    const refused = (lines: ReadonlyArray<string>) => errorOf(server(lines), "c.toml")

    it("oauth_client_metadata_url: an https URL with a path, for a login in a browser", () => {
      assert.deepStrictEqual(transport(['oauth_client_metadata_url = "https://client.example/metadata.json"']), {
        _tag: "http",
        url: "https://mcp.example/mcp",
        httpHeaders: {},
        oauthClientMetadataUrl: "https://client.example/metadata.json"
      })
      assert.strictEqual(
        refused(['oauth_client_metadata_url = "http://client.example/metadata.json"']),
        'c.toml: mcp_servers.t.oauth_client_metadata_url: must be an https:// URL with a path (the client\'s metadata document), got "http://client.example/metadata.json"'
      )
      assert.match(
        refused(['oauth_client_metadata_url = "https://client.example/"']),
        /must be an https:\/\/ URL with a path/
      )
    })

    it("client_credentials with client_secret_basic (the default) or private_key_jwt from a file or a variable", () => {
      assert.deepStrictEqual(
        transport([
          'oauth_grant = "client_credentials"',
          'oauth_client_id = "svc"',
          'oauth_client_secret_env_var = "S"'
        ]),
        {
          _tag: "http",
          url: "https://mcp.example/mcp",
          httpHeaders: {},
          oauthClientId: "svc",
          oauthClientSecretEnvVar: "S",
          oauthGrant: { _tag: "client_credentials", clientAuth: { _tag: "client_secret_basic" } }
        }
      )
      const keyed = (key: string) =>
        transport([
          'oauth_grant = "client_credentials"',
          'oauth_client_id = "svc"',
          'oauth_client_auth = "private_key_jwt"',
          key
        ])
      assert.deepStrictEqual(keyed('oauth_private_key_file = "/etc/svc/key.pem"'), {
        _tag: "http",
        url: "https://mcp.example/mcp",
        httpHeaders: {},
        oauthClientId: "svc",
        oauthGrant: {
          _tag: "client_credentials",
          clientAuth: { _tag: "private_key_jwt", privateKey: { _tag: "file", path: "/etc/svc/key.pem" } }
        }
      })
      assert.deepStrictEqual((keyed('oauth_private_key_env_var = "SVC_KEY"') as { oauthGrant?: unknown }).oauthGrant, {
        _tag: "client_credentials",
        clientAuth: { _tag: "private_key_jwt", privateKey: { _tag: "envVar", name: "SVC_KEY" } }
      })
    })

    it("enterprise: the IdP's token endpoint, client and the variables of its secret and the user's ID token", () => {
      assert.deepStrictEqual(
        (
          transport([
            'oauth_grant = "enterprise"',
            'oauth_client_id = "app"',
            'oauth_client_secret_env_var = "APP_SECRET"',
            'oauth_idp_token_endpoint = "https://idp.example/oauth2/token"',
            'oauth_idp_client_id = "idp-app"',
            'oauth_idp_client_secret_env_var = "IDP_SECRET"',
            'oauth_idp_id_token_env_var = "ID_TOKEN"'
          ]) as { oauthGrant?: unknown }
        ).oauthGrant,
        {
          _tag: "enterprise",
          idp: {
            tokenEndpoint: "https://idp.example/oauth2/token",
            clientId: "idp-app",
            clientSecretEnvVar: "IDP_SECRET",
            idTokenEnvVar: "ID_TOKEN"
          }
        }
      )
    })

    it("each grant's keys are refused where they do not apply, and what a grant needs is named", () => {
      const prefix = "c.toml: mcp_servers.t."
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
        [
          ['oauth_grant = "client_credentials"', 'oauth_client_secret_env_var = "S"'],
          'oauth_grant: "client_credentials" needs `oauth_client_id`'
        ],
        [
          ['oauth_grant = "client_credentials"', 'oauth_client_id = "svc"'],
          'oauth_grant: "client_credentials" with client_secret_basic needs `oauth_client_secret_env_var`'
        ],
        [
          ['oauth_grant = "client_credentials"', 'oauth_client_id = "svc"', 'oauth_client_auth = "private_key_jwt"'],
          'oauth_client_auth: "private_key_jwt" needs exactly one of `oauth_private_key_file` or `oauth_private_key_env_var`'
        ],
        [
          [
            'oauth_grant = "client_credentials"',
            'oauth_client_id = "svc"',
            'oauth_client_auth = "private_key_jwt"',
            'oauth_private_key_file = "k"',
            'oauth_private_key_env_var = "K"'
          ],
          'oauth_client_auth: "private_key_jwt" needs exactly one of `oauth_private_key_file` or `oauth_private_key_env_var`'
        ],
        [
          [
            'oauth_grant = "client_credentials"',
            'oauth_client_id = "svc"',
            'oauth_client_auth = "private_key_jwt"',
            'oauth_private_key_file = "k"',
            'oauth_client_secret_env_var = "S"'
          ],
          'oauth_client_secret_env_var: is not used with oauth_client_auth = "private_key_jwt"'
        ],
        [
          [
            'oauth_grant = "client_credentials"',
            'oauth_client_id = "svc"',
            'oauth_client_secret_env_var = "S"',
            'oauth_private_key_file = "k"'
          ],
          'oauth_private_key_file: only applies to oauth_client_auth = "private_key_jwt"'
        ],
        [
          ['oauth_client_auth = "private_key_jwt"'],
          'oauth_client_auth: only applies to oauth_grant = "client_credentials"'
        ],
        [['oauth_idp_client_id = "x"'], 'oauth_idp_client_id: only applies to oauth_grant = "enterprise"'],
        [
          [
            'oauth_grant = "client_credentials"',
            'oauth_client_id = "svc"',
            'oauth_client_secret_env_var = "S"',
            "oauth_redirect_port = 8976"
          ],
          'oauth_redirect_port: only applies to oauth_grant = "authorization_code" (a login in a browser)'
        ],
        [
          [
            'oauth_grant = "client_credentials"',
            'oauth_client_id = "svc"',
            'oauth_client_secret_env_var = "S"',
            'bearer_token_env_var = "T"'
          ],
          "oauth_grant: does not apply with `bearer_token_env_var` (the entry sends its own token)"
        ],
        [
          [
            'oauth_grant = "enterprise"',
            'oauth_client_id = "app"',
            'oauth_client_secret_env_var = "S"',
            'oauth_idp_client_id = "i"',
            'oauth_idp_id_token_env_var = "T"'
          ],
          'oauth_grant: "enterprise" needs `oauth_idp_token_endpoint`'
        ],
        [
          [
            'oauth_grant = "enterprise"',
            'oauth_client_id = "app"',
            'oauth_idp_token_endpoint = "https://idp.example/token"',
            'oauth_idp_client_id = "i"',
            'oauth_idp_id_token_env_var = "T"'
          ],
          'oauth_grant: "enterprise" needs `oauth_client_secret_env_var` (the client\'s secret at the authorization server)'
        ],
        [
          [
            'oauth_grant = "enterprise"',
            'oauth_client_id = "app"',
            'oauth_client_secret_env_var = "S"',
            'oauth_idp_token_endpoint = "http://idp.example/token"',
            'oauth_idp_client_id = "i"',
            'oauth_idp_id_token_env_var = "T"'
          ],
          'oauth_idp_token_endpoint: must be an https:// URL (http:// only on a loopback host), got "http://idp.example/token"'
        ]
      ]
      for (const [lines, problem] of cases) assert.strictEqual(refused(lines), `${prefix}${problem}`)
      assert.match(refused(['oauth_grant = "password"']), /^c\.toml: mcp_servers\.t\.oauth_grant: expected /)
      assert.strictEqual(
        errorOf('[mcp_servers.s]\ncommand = "node"\noauth_grant = "client_credentials"\n', "c.toml"),
        "c.toml: mcp_servers.s.oauth_grant: only applies to streamable HTTP servers (`url`)"
      )
    })
  })

  it("reads [cache] and [mcp] with their defaults", () => {
    assert.deepStrictEqual(ok("{}", "c.json").cache, { enabled: true, maxBytes: 67108864 })
    assert.deepStrictEqual(ok("{}", "c.json").mcp, {
      startupConcurrency: 8,
      threadlessConcurrency: 8,
      threadlessWaitSec: 30,
      elicitationTimeoutSec: 120
    })
    const config = ok(
      [
        "[cache]",
        "enabled = false",
        "max_bytes = 1024",
        "[mcp]",
        "startup_concurrency = 2",
        "threadless_concurrency = 3",
        "threadless_wait_sec = 0.5"
      ].join("\n"),
      "c.toml"
    )
    assert.deepStrictEqual(config.cache, { enabled: false, maxBytes: 1024 })
    assert.deepStrictEqual(config.mcp, {
      startupConcurrency: 2,
      threadlessConcurrency: 3,
      threadlessWaitSec: 0.5,
      elicitationTimeoutSec: 120
    })
  })

  it("reads [changes] (the body store's bounds), a missing key taking its default; a negative bound is refused", () => {
    assert.isUndefined(ok("{}", "c.json").changes)
    assert.deepStrictEqual(Config.changesDefaults, {
      bodyMaxBytes: 4194304,
      threadMaxBytes: 67108864,
      storeMaxBytes: 536870912,
      verifyPushSec: 300,
      streamReopenMax: 8
    })
    assert.deepStrictEqual(ok("[changes]\nbody_max_bytes = 1024\nstore_max_bytes = 0", "c.toml").changes, {
      bodyMaxBytes: 1024,
      threadMaxBytes: 67108864,
      storeMaxBytes: 0,
      verifyPushSec: 300,
      streamReopenMax: 8
    })
    assert.strictEqual(
      errorOf("[changes]\nthread_max_bytes = -1", "c.toml"),
      "c.toml: changes.thread_max_bytes: must be a whole number of bytes with 0 <= n <= 17179869184"
    )
    assert.strictEqual(errorOf("[changes]\nmax_bytes = 1", "c.toml"), "c.toml: changes.max_bytes: unknown key")
  })

  it("reads change detection's keys: [changes] verify_push_sec and stream_reopen_max, a server's poll_changes_sec (0: off)", () => {
    const read = ok(
      '[changes]\nverify_push_sec = 0\nstream_reopen_max = 3\n[mcp_servers.a]\ncommand = "x"\npoll_changes_sec = 0\n[mcp_servers.b]\ncommand = "y"',
      "c.toml"
    )
    assert.deepStrictEqual(
      { verifyPushSec: read.changes?.verifyPushSec, streamReopenMax: read.changes?.streamReopenMax },
      { verifyPushSec: 0, streamReopenMax: 3 }
    )
    // absent: the default (60 s) applies where the entry is used
    assert.deepStrictEqual(
      read.mcpServers.map((s) => s.pollChangesSec),
      [0, undefined]
    )
    assert.strictEqual(
      errorOf('[mcp_servers.a]\ncommand = "x"\npoll_changes_sec = -1', "c.toml"),
      "c.toml: mcp_servers.a.poll_changes_sec: must be a number of seconds with 0 <= t <= 86400 (0: off)"
    )
    assert.strictEqual(
      errorOf("[changes]\nstream_reopen_max = 0", "c.toml"),
      "c.toml: changes.stream_reopen_max: must be an integer with 1 <= n <= 1000"
    )
  })

  it("refuses text that is not TOML or JSON, naming the file and the format", () => {
    assert.match(errorOf("not toml [[", "c.toml"), /^c\.toml: not valid TOML: /)
    assert.match(errorOf("{", "c.json"), /^c\.json: not valid JSON: /)
  })
})
