import { Client } from "@modelcontextprotocol/client"
import { connectInMemory } from "@mcp-resources/fixtures"
const fx = connectInMemory({ resourcePages: [{ result: { resources: [] } }] })
const c = await fx.connect()
const origSend = c.send.bind(c)
c.send = (m, o) => { console.log("->", JSON.stringify(m).slice(0, 150)); return origSend(m, o) }
const client = new Client({ name: "t", version: "1" }, { versionNegotiation: { mode: "auto" } })
const t0 = Date.now()
try { await client.connect(c, { timeout: 3000 }); console.log("ok", client.getNegotiatedProtocolVersion(), Date.now() - t0) } catch (e) { console.log("err", e.code, e.message, Date.now() - t0) }
console.log(fx.requests)
await client.close()
