/** The depth guard: params nested deeper than {@link maxParamsDepth} are refused before any schema sees them. */

/** How deep params may nest. No method's params come close; the bound keeps decoding off the stack limit. */
export const maxParamsDepth = 64

/**
 * The path of the first value nested deeper than `max` levels, or undefined. Iterative, so that any
 * depth JSON.parse accepted is measured without recursion.
 */
export const tooDeep = (value: unknown, max: number = maxParamsDepth): ReadonlyArray<string> | undefined => {
  if (typeof value !== "object" || value === null) return undefined
  // The common case, flat params (no nested object), is answered without walking paths.
  if (max > 0 && !hasNestedObject(value)) return undefined
  const stack: Array<{ value: unknown; path: ReadonlyArray<string> }> = [{ value, path: [] }]
  while (stack.length > 0) {
    const { value: v, path } = stack.pop()!
    if (typeof v !== "object" || v === null) continue
    if (path.length >= max) return path
    for (const [key, child] of Object.entries(v)) stack.push({ value: child, path: [...path, key] })
  }
  return undefined
}

/** Whether any of an object's own values is itself an object (or array). */
const hasNestedObject = (value: object): boolean => {
  if (Array.isArray(value)) {
    for (const child of value) if (typeof child === "object" && child !== null) return true
    return false
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue
    const child = (value as Record<string, unknown>)[key]
    if (typeof child === "object" && child !== null) return true
  }
  return false
}
