import { Effect } from "effect"
import { BodyStore } from "../src/index.js"
import { bodyStoreSuite } from "./BodyStoreSuite.js"

bodyStoreSuite("memory", Effect.succeed({ open: (bounds) => BodyStore.layerMemory(bounds) }), { persistent: false })
