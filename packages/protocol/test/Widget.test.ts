import { assert, describe, it } from "@effect/vitest"
import * as Widget from "../src/Widget.js"

describe("Widget.mergeUiMeta", () => {
  it("takes each field from the content item when it has it, else from the list entry", () => {
    const list = { ui: { csp: { connectDomains: ["https://list.example"] }, prefersBorder: true, domain: "list" } }
    const content = { ui: { csp: { resourceDomains: ["https://cdn.example"] }, domain: "content" } }
    assert.deepStrictEqual(Widget.mergeUiMeta(list, content), {
      // csp is one field: the content item's replaces the list entry's whole
      csp: { resourceDomains: ["https://cdn.example"] },
      prefersBorder: true,
      domain: "content"
    })
  })

  it("keeps the list entry's metadata when the content item has none, and {} when neither has any", () => {
    const list = { ui: { permissions: { camera: {} }, prefersBorder: false } }
    assert.deepStrictEqual(Widget.mergeUiMeta(list, undefined), { permissions: { camera: {} }, prefersBorder: false })
    assert.deepStrictEqual(Widget.mergeUiMeta(undefined, {}), {})
  })

  it("drops fields of the wrong type instead of passing them on", () => {
    const content = { ui: { csp: { connectDomains: "https://x.example", frameDomains: [1] }, prefersBorder: "yes" } }
    assert.deepStrictEqual(Widget.mergeUiMeta({ ui: { prefersBorder: true } }, content), {
      csp: {},
      prefersBorder: true
    })
  })
})

describe("Widget.isAppVisible", () => {
  it("absent visibility means model and app; an explicit list is taken as given", () => {
    assert.isTrue(Widget.isAppVisible(undefined))
    assert.isTrue(Widget.isAppVisible({ ui: { visibility: ["app"] } }))
    assert.isFalse(Widget.isAppVisible({ ui: { visibility: ["model"] } }))
    assert.isFalse(Widget.isAppVisible({ ui: { visibility: [] } }))
  })
})
