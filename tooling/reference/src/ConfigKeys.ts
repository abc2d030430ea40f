/**
 * What each config key means and its default. The keys, their types and bounds come from the config
 * file's JSON Schema (generated from `protocol` Config.RawConfig); defaults are read from the protocol's
 * own values where it has them. Generation fails when a key of the schema is missing here, or when an
 * entry here names no key, so that a new key cannot land undocumented.
 */
import { Config, Truncation } from "@mcp-resources/protocol"

/** The documentation of one key. */
export interface KeyDoc {
  /** The default as written in the file (`true`, `10`, `"codex_apps"`), or how absence is read. */
  readonly default: string
  readonly meaning: string
}

const d = Config.serverDefaults
const json = (value: unknown) => `\`${JSON.stringify(value)}\``

/** Path (`NAME` for a key you choose) → documentation. */
export const keys: Readonly<Record<string, KeyDoc>> = {
  mcp_servers: { default: "no servers", meaning: "The MCP servers, one table per server; `NAME` is its name." },
  "mcp_servers.NAME.type": {
    default: "from the fields",
    meaning:
      "Checked against the fields: `stdio` needs `command`; `http` and `streamable-http` (the same) need `url`; `sse` needs `url` and speaks only the legacy HTTP+SSE transport (2024-11-05). Without `sse`, an HTTP server that refuses the first streamable HTTP POST with 400, 404 or 405 is tried over HTTP+SSE on the same URL."
  },
  "mcp_servers.NAME.command": {
    default: "—",
    meaning: "A stdio server: the program to start. Exactly one of `command` and `url`."
  },
  "mcp_servers.NAME.args": { default: "`[]`", meaning: "Arguments of `command`." },
  "mcp_servers.NAME.env": {
    default: "`{}`",
    meaning: "Variables added to the inherited environment of `command`. Values never appear in logs or listings."
  },
  "mcp_servers.NAME.cwd": { default: "the app-server's", meaning: "Working directory of `command`." },
  "mcp_servers.NAME.url": {
    default: "—",
    meaning:
      "A streamable HTTP server: its `http://` or `https://` URL, without credentials (`user:password@` is refused: send them in `http_headers`); its query values are shown as `REDACTED` in every message. Exactly one of `command` and `url`."
  },
  "mcp_servers.NAME.bearer_token_env_var": {
    default: "none",
    meaning:
      "HTTP only: every request carries `Authorization: Bearer <value of this variable>`; an unset variable makes the server `failed`."
  },
  "mcp_servers.NAME.http_headers": { default: "`{}`", meaning: "HTTP only: headers sent with every request." },
  "mcp_servers.NAME.oauth_client_id": {
    default: "none (dynamic registration)",
    meaning:
      "HTTP only: the client id pre-registered with the server's OAuth authorization server; without it `mcp-resources login` registers a client dynamically."
  },
  "mcp_servers.NAME.oauth_client_secret_env_var": {
    default: "none (a public client)",
    meaning: "HTTP only: the environment variable holding the secret of the pre-registered client (`oauth_client_id`)."
  },
  "mcp_servers.NAME.oauth_redirect_port": {
    default: "none (a free port)",
    meaning:
      "HTTP only: the loopback port login listens on for the redirect (`http://127.0.0.1:PORT/callback`), for a client registered with that redirect URI."
  },
  "mcp_servers.NAME.oauth_client_metadata_url": {
    default: "none",
    meaning:
      "HTTP only, browser login: the `https://` URL (with a path) of this client's metadata document; it is the client id where the authorization server advertises `client_id_metadata_document_supported`, else the client registers dynamically. `oauth_client_id` comes first. See docs/oauth.md for an example document."
  },
  "mcp_servers.NAME.oauth_grant": {
    default: '`"authorization_code"`',
    meaning:
      'HTTP only: how tokens are obtained. `"authorization_code"`: a login in a browser. `"client_credentials"`: the client authenticates as itself (`oauth_client_auth`), no login. `"enterprise"`: cross-app access, the user\'s ID token of the enterprise IdP exchanged for an ID-JAG (`oauth_idp_*`). The last two need `oauth_client_id`.'
  },
  "mcp_servers.NAME.oauth_client_auth": {
    default: '`"client_secret_basic"`',
    meaning:
      '`oauth_grant = "client_credentials"` only: `"client_secret_basic"` (the secret of `oauth_client_secret_env_var`) or `"private_key_jwt"` (assertions signed with the key of `oauth_private_key_file` or `oauth_private_key_env_var`).'
  },
  "mcp_servers.NAME.oauth_private_key_file": {
    default: "none",
    meaning:
      '`"private_key_jwt"` only: the file holding the PEM private key (PKCS#8, PKCS#1 or SEC1; RSA, EC P-256/384/521 or Ed25519) that signs client assertions. The key itself never goes in the config.'
  },
  "mcp_servers.NAME.oauth_private_key_env_var": {
    default: "none",
    meaning: '`"private_key_jwt"` only: the environment variable holding that PEM private key instead of a file.'
  },
  "mcp_servers.NAME.oauth_idp_token_endpoint": {
    default: "none",
    meaning:
      '`oauth_grant = "enterprise"` only (required): the enterprise IdP\'s token endpoint (RFC 8693 token exchange); `https://`, or `http://` on a loopback host.'
  },
  "mcp_servers.NAME.oauth_idp_client_id": {
    default: "none",
    meaning: '`oauth_grant = "enterprise"` only (required): this client\'s id at the enterprise IdP.'
  },
  "mcp_servers.NAME.oauth_idp_client_secret_env_var": {
    default: "none (a public client)",
    meaning: '`oauth_grant = "enterprise"` only: the environment variable holding the secret of the client at the IdP.'
  },
  "mcp_servers.NAME.oauth_idp_id_token_env_var": {
    default: "none",
    meaning:
      '`oauth_grant = "enterprise"` only (required): the environment variable holding the user\'s ID token from the enterprise IdP, provided by the deployment.'
  },
  "mcp_servers.NAME.enabled": {
    default: json(d.enabled),
    meaning: "`false`: the server is listed as `disabled` and never started."
  },
  "mcp_servers.NAME.startup_timeout_sec": {
    default: json(d.startupTimeoutSec),
    meaning: "Seconds for connect, `initialize` and the first tool list together."
  },
  "mcp_servers.NAME.tool_timeout_sec": {
    default: json(d.toolTimeoutSec),
    meaning: "Seconds for each request to the server, and for all pages of one list together."
  },
  "mcp_servers.NAME.max_message_bytes": {
    default: `${json(d.maxMessageBytes)} (64 MiB)`,
    meaning: "stdio only: the largest message accepted from the server; a larger one makes the server `failed`."
  },
  "mcp_servers.NAME.protocol_version": {
    default: '`"auto"`',
    meaning:
      "Protocol era: `auto` probes `server/discover` and falls back to `initialize`; `legacy` runs `initialize` only (revisions 2024-11-05 to 2025-11-25); `2026-07-28` speaks that revision only. See [protocol-eras.md](protocol-eras.md)."
  },
  "mcp_servers.NAME.poll_changes_sec": {
    default: `${json(Config.serverDefaults.pollChangesSec)}`,
    meaning:
      "How often (seconds) the resources threads watch are read again when the server does not push changes (no `resources.subscribe`, or fallen back); a read's `ttlMs` is the floor; `0` turns polling off. See [templates-and-changes.md](templates-and-changes.md#detecting-changes)."
  },
  "mcp_servers.NAME.resources": {
    default: "`[resources]`",
    meaning: "This server's resource rules ([policy.md](policy.md)), on top of `[resources]`."
  },
  "mcp_servers.NAME.resources.allow": {
    default: "`[resources] allow`",
    meaning: "URI patterns of this server the model may see; replaces `[resources] allow` for this server."
  },
  "mcp_servers.NAME.resources.deny": {
    default: "`[]`",
    meaning: "URI patterns of this server nobody may list or read, in addition to `[resources] deny`."
  },
  cache: { default: "—", meaning: "The result cache of lists and reads ([caching.md](caching.md))." },
  "cache.enabled": {
    default: json(Config.cacheDefaults.enabled),
    meaning: "`false` turns the result cache off: every list and read goes to the server."
  },
  "cache.max_bytes": {
    default: `${json(Config.cacheDefaults.maxBytes)} (64 MiB)`,
    meaning: "Bound of the cache in bytes; the least recently used entries are evicted past it. `0` turns it off."
  },
  mcp: { default: "—", meaning: "Connection limits ([connection-limits.md](connection-limits.md))." },
  "mcp.startup_concurrency": {
    default: json(Config.mcpDefaults.startupConcurrency),
    meaning: "Servers that start at once; a server's startup timeout counts from when its own start begins."
  },
  "mcp.threadless_concurrency": {
    default: json(Config.mcpDefaults.threadlessConcurrency),
    meaning: "Throw-away connections of threadless reads open at once; more wait for a free one."
  },
  "mcp.threadless_wait_sec": {
    default: json(Config.mcpDefaults.threadlessWaitSec),
    meaning: "How long a threadless read waits for a free connection before it is refused."
  },
  "mcp.elicitation_timeout_sec": {
    default: json(Config.mcpDefaults.elicitationTimeoutSec),
    meaning:
      "How long the app-server waits for a client's answer to an MCP server's elicitation ([server-requests.md](server-requests.md)); then it declines. The wait does not count against the call's `tool_timeout_sec`."
  },
  tools: { default: "—", meaning: "The model tools' profile ([tools.md](tools.md#the-extended-profile))." },
  "tools.profile": {
    default: json(Config.toolsDefaults.profile),
    meaning:
      "`codex`: the resource tools of the Codex contract, byte for byte. `extended`: windows over large text, images as images, binary described, never base64. A thread's `config.toolProfile` overrides it."
  },
  "tools.max_image_bytes": {
    default: `${json(Config.toolsDefaults.maxImageBytes)} (5 MiB)`,
    meaning: "Extended profile: the largest image (decoded bytes) sent as an image; a larger one is described."
  },
  search: {
    default: "—",
    meaning: "The resource search index of each connection set ([tools.md](tools.md#search_mcp_resources))."
  },
  "search.max_resources": {
    default: json(Config.searchDefaults.maxResources),
    meaning:
      "The most resources and templates one connection set's search index holds; the servers' lists are walked up to it, and a search says what was left out."
  },
  "search.build_timeout_sec": {
    default: json(Config.searchDefaults.buildTimeoutSec),
    meaning:
      "How long building one server's part of the search index may take (every list page included); a search never waits longer and names the servers still indexing."
  },
  changes: {
    default: "—",
    meaning:
      "The bounds of the body store (the bodies threads read, kept once each by SHA-256 beside the thread store), read by hosts that open it; the app-server does not open it yet ([templates-and-changes.md](templates-and-changes.md#the-body-store))."
  },
  "changes.body_max_bytes": {
    default: `${json(Config.changesDefaults.bodyMaxBytes)} (4 MiB)`,
    meaning: "The largest body kept; a larger one keeps only its digest and size."
  },
  "changes.thread_max_bytes": {
    default: `${json(Config.changesDefaults.threadMaxBytes)} (64 MiB)`,
    meaning: "The bytes of the bodies one thread holds; past it, that thread's oldest are released first."
  },
  "changes.store_max_bytes": {
    default: `${json(Config.changesDefaults.storeMaxBytes)} (512 MiB)`,
    meaning:
      "The bytes of the whole body store (a body held by several threads counted once); past it, the oldest bodies are evicted first."
  },
  "changes.verify_push_sec": {
    default: `${json(Config.changesDefaults.verifyPushSec)}`,
    meaning:
      "How often (seconds) a server that accepted subscriptions is checked by reading its watched resources; a change it did not push marks it as not pushing, and it is polled from then on. `0` turns the check off."
  },
  "changes.stream_reopen_max": {
    default: `${json(Config.changesDefaults.streamReopenMax)}`,
    meaning:
      "How many times in a row a dropped 2026-07-28 subscription stream is reopened (after 0.5 s, doubling up to 30 s) before it is given up and the server is polled."
  },
  cluster: {
    default: "—",
    meaning:
      "Several app-servers on one PostgreSQL store serving as one (`--cluster` turns it on too); refused on SQLite or memory persistence ([deploying.md](deploying.md))."
  },
  "cluster.enabled": {
    default: json(Config.clusterDefaults.enabled),
    meaning:
      "Serve as one instance of a cluster: each thread's records reach its subscribers on every instance, and every instance reads what another acknowledged."
  },
  "cluster.runner_address": {
    default: `${json(Config.clusterDefaults.runnerAddress)} (a free loopback port)`,
    meaning:
      "`HOST:PORT` the other instances reach this one at. A non-loopback host is a private-network-only setting (or one behind TLS) and needs `MCP_RESOURCES_CLUSTER_SECRET`, the same on every instance; the app-server refuses to start without it. The instance's runner listens there (HTTP; with the secret set, a request without it is refused with `403`)."
  },
  "cluster.shards": {
    default: json(Config.clusterDefaults.shards),
    meaning: "How many shards the threads are spread over; every instance of a cluster must say the same."
  },
  "cluster.lock_expiration_sec": {
    default: json(Config.clusterDefaults.lockExpirationSec),
    meaning:
      "How long a dead instance's shard locks hold before a survivor takes its threads over (and closes the calls the dead one left open as `interrupted`)."
  },
  oauth: {
    default: "—",
    meaning:
      "How logins through the app-server (`mcpServer/oauth/login`) receive the browser's redirect ([oauth.md](oauth.md))."
  },
  "oauth.redirect_url": {
    default: "none (a loopback listener per login)",
    meaning:
      "The redirect URI of logins through the app-server: an `https://` URL with a path (`http://` only on a loopback host) that reaches its `--listen` listener, which answers that path; the login in progress is kept in the token store, so the instance the redirect reaches completes it (a browser on another machine, any instance of a cluster). Requires `--listen`; `mcp-resources login` keeps its loopback listener."
  },
  resources: {
    default: "no rules",
    meaning: "Resource rules of every server ([policy.md](policy.md)); a server's own table adds to them."
  },
  "resources.allow": {
    default: "absent: everything allowed",
    meaning:
      "URI patterns the model may see (`*` within a segment, `**` across, URI templates match their expansions); a server's `allow` replaces this one."
  },
  "resources.deny": {
    default: "`[]`",
    meaning: "URI patterns nobody may list or read; deny wins over allow. Adds up with the servers' and the thread's."
  },
  hooks: {
    default: "no hooks",
    meaning: "Command hooks around every model tool call ([policy.md](policy.md#command-hooks-app-server))."
  },
  "hooks.before_tool": {
    default: "`[]`",
    meaning:
      "Hooks run before a call, in order: allow, deny with a reason, or rewrite the arguments. A failure or time-out refuses the call."
  },
  "hooks.before_tool[].matcher": {
    default: "every tool",
    meaning: "A regular expression on the tool name (`read_mcp_resource`, `mcp__server__tool`)."
  },
  "hooks.before_tool[].command": { default: "—", meaning: "The program to run (no shell)." },
  "hooks.before_tool[].args": { default: "`[]`", meaning: "Its arguments." },
  "hooks.before_tool[].timeout_sec": {
    default: json(Config.hookDefaultTimeoutSec),
    meaning: "How long one run may take; then its process is killed and the run fails."
  },
  "hooks.after_tool": {
    default: "`[]`",
    meaning: "Hooks run after a call, in order: pass, redact or replace the output. A failure withholds the output."
  },
  "hooks.after_tool[].matcher": { default: "every tool", meaning: "As `hooks.before_tool[].matcher`." },
  "hooks.after_tool[].command": { default: "—", meaning: "As `hooks.before_tool[].command`." },
  "hooks.after_tool[].args": { default: "`[]`", meaning: "As `hooks.before_tool[].args`." },
  "hooks.after_tool[].timeout_sec": {
    default: json(Config.hookDefaultTimeoutSec),
    meaning: "As `hooks.before_tool[].timeout_sec`."
  },
  widgets: {
    default: "—",
    meaning:
      "The MCP Apps widget host: the `mcp/widget/*` methods and `mcp-resources widgets` ([widgets.md](widgets.md))."
  },
  "widgets.enabled": {
    default: json(Config.widgetsDefaults.enabled),
    meaning: "`false`: every `mcp/widget/*` method is refused (`widgets are disabled ([widgets] enabled = false)`)."
  },
  "widgets.page_port": {
    default: `${json(Config.widgetsDefaults.pagePort)} (any free port)`,
    meaning:
      "`mcp-resources widgets`: the loopback port of the host page (its origin is the only one the app-server allows)."
  },
  "widgets.sandbox_port": {
    default: `${json(Config.widgetsDefaults.sandboxPort)} (any free port)`,
    meaning:
      "`mcp-resources widgets`: the loopback port of the sandbox proxies, each widget on an origin of its own (`http://<label>.localhost:<port>`)."
  },
  mcpServers: {
    default: "no servers",
    meaning:
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the `${VAR}` syntax of other hosts' files, as written
      "JSON files only: another host's server map (Claude Desktop, Claude Code, Cursor), instead of `mcp_servers` (never both). Only this map of such a file is read; its other top-level keys are named once on standard error and ignored. `${VAR}`, `${VAR:-default}` and `${env:VAR}` in its strings are expanded ([config.md](config.md#other-hosts-files))."
  },
  "mcpServers.NAME.type": {
    default: "from the fields",
    meaning: "As `mcp_servers.NAME.type`: `stdio`, `http`, `streamable-http` or `sse`."
  },
  "mcpServers.NAME.command": { default: "—", meaning: "As `mcp_servers.NAME.command`." },
  "mcpServers.NAME.args": { default: "`[]`", meaning: "As `mcp_servers.NAME.args`." },
  "mcpServers.NAME.env": { default: "`{}`", meaning: "As `mcp_servers.NAME.env`." },
  "mcpServers.NAME.cwd": { default: "the app-server's", meaning: "As `mcp_servers.NAME.cwd`." },
  "mcpServers.NAME.url": { default: "—", meaning: "As `mcp_servers.NAME.url`." },
  "mcpServers.NAME.headers": { default: "`{}`", meaning: "As `mcp_servers.NAME.http_headers`." },
  "mcpServers.NAME.oauth": {
    default: "—",
    meaning: "OAuth settings of an HTTP server, as Claude Code and VS Code write them."
  },
  "mcpServers.NAME.oauth.clientId": { default: "none", meaning: "As `mcp_servers.NAME.oauth_client_id`." },
  "mcpServers.NAME.oauth.callbackPort": { default: "none", meaning: "As `mcp_servers.NAME.oauth_redirect_port`." },
  "mcpServers.NAME.enabled": { default: json(d.enabled), meaning: "As `mcp_servers.NAME.enabled`." },
  servers: {
    default: "no servers",
    meaning:
      // biome-ignore lint/suspicious/noTemplateCurlyInString: VS Code's `${input:ID}` syntax, as written
      "JSON files only: VS Code's server map (`.vscode/mcp.json`), read as `mcpServers` is (its `inputs` are not read; an `${input:ID}` reference is refused)."
  },
  "servers.NAME.type": { default: "from the fields", meaning: "As `mcpServers.NAME.type`." },
  "servers.NAME.command": { default: "—", meaning: "As `mcpServers.NAME.command`." },
  "servers.NAME.args": { default: "`[]`", meaning: "As `mcpServers.NAME.args`." },
  "servers.NAME.env": { default: "`{}`", meaning: "As `mcpServers.NAME.env`." },
  "servers.NAME.cwd": { default: "the app-server's", meaning: "As `mcpServers.NAME.cwd`." },
  "servers.NAME.url": { default: "—", meaning: "As `mcpServers.NAME.url`." },
  "servers.NAME.headers": { default: "`{}`", meaning: "As `mcpServers.NAME.headers`." },
  "servers.NAME.oauth": { default: "—", meaning: "As `mcpServers.NAME.oauth`." },
  "servers.NAME.oauth.clientId": { default: "none", meaning: "As `mcpServers.NAME.oauth.clientId`." },
  "servers.NAME.oauth.callbackPort": { default: "none", meaning: "As `mcpServers.NAME.oauth.callbackPort`." },
  "servers.NAME.enabled": { default: json(d.enabled), meaning: "As `mcpServers.NAME.enabled`." },
  orchestrator: { default: "—", meaning: "Switches for the apps server's features." },
  "orchestrator.mcp": { default: "—", meaning: "The model tools' access to the apps server." },
  "orchestrator.mcp.enabled": {
    default: json(Config.empty.orchestrator.mcpEnabled),
    meaning:
      "`false`: the model's resource tools cannot see the apps server (a thread's `config.orchestratorMcpEnabled` overrides it)."
  },
  "orchestrator.skills": { default: "—", meaning: "The skills methods." },
  "orchestrator.skills.enabled": {
    default: json(Config.empty.orchestrator.skillsEnabled),
    meaning: "`false`: `skills/list` is empty and `skills/read` fails."
  },
  skills: { default: "—", meaning: "Skills over MCP (the skills extension), beside the Codex catalog." },
  "skills.extension": {
    default: "`true`",
    meaning:
      "`false`: `skills/extension/list` is empty and `skills/extension/read` fails; no `skills/list` request is sent to any server. `orchestrator.skills.enabled` does not gate it."
  },
  apps: { default: "—", meaning: "The apps server and its connectors." },
  "apps.server_name": {
    default: json(Config.empty.apps.serverName),
    meaning: "Which configured server is the apps server (widgets, skills, connectors)."
  },
  "apps.connectors": { default: "`{}`", meaning: "Per-connector policy; `NAME` is a connector id." },
  "apps.connectors.NAME.enabled": {
    default: "`true`",
    meaning: "`false`: every tool of the connector is hidden, refused and not readable as a widget origin."
  },
  "apps.connectors.NAME.tools": { default: "`{}`", meaning: "Per-tool policy; `NAME` is the raw MCP tool name." },
  "apps.connectors.NAME.tools.NAME.enabled": { default: "`true`", meaning: "`false`: this one tool is disabled." },
  truncation: { default: "—", meaning: "How model-facing output is shortened." },
  "truncation.mode": {
    default: json(Truncation.defaultPolicy.mode),
    meaning: "`bytes` counts UTF-8 bytes; `tokens` estimates 4 bytes per token."
  },
  "truncation.limit": {
    default: json(Truncation.defaultPolicy.limit),
    meaning: "The budget, multiplied by 1.2 (rounded up) when applied."
  },
  persistence: { default: "—", meaning: "Where threads are stored. Read at start only." },
  "persistence.driver": {
    default: json(Config.empty.persistence.driver),
    meaning:
      "`sqlite` (`DATA_DIR/state.sqlite`), `postgres` (shared by several app-servers) or `memory` (nothing kept)."
  },
  "persistence.url": {
    default: "`$DATABASE_URL`",
    meaning: "The PostgreSQL connection URL (driver `postgres`)."
  }
}
