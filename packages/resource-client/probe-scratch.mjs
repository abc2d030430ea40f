import { Client } from "@modelcontextprotocol/client"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
const mode = process.argv[2] ?? "auto"
const [c, s] = InMemoryTransport.createLinkedPair()
const server = new McpServer({ name: "x", version: "1" }, { capabilities: { resources: {} } })
server.resource("a", "memo://a", async () => ({ contents: [{ uri: "memo://a", text: "hi" }] }))
await server.connect(s)
const origSend = c.send.bind(c)
c.send = (m, o) => { console.log("->", JSON.stringify(m).slice(0, 200)); return origSend(m, o) }
const client = new Client({ name: "t", version: "1" }, { versionNegotiation: { mode } })
const t0 = Date.now()
try { await client.connect(c, { timeout: 3000 }); console.log("ok", client.getNegotiatedProtocolVersion(), client.getProtocolEra(), Date.now() - t0) } catch (e) { console.log("err", e.constructor.name, e.code, e.message, Date.now() - t0) }
await client.close()
