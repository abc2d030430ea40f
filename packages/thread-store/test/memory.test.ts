import { Effect } from "effect"
import { ThreadStore } from "../src/index.js"
import { threadStoreSuite } from "./ThreadStoreSuite.js"

threadStoreSuite("memory", Effect.succeed({ open: () => ThreadStore.layerMemory }), { shared: false })
