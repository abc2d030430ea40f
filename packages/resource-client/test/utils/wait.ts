/** Waits until `ready()` holds, letting I/O run between checks; fails after `millis`. */
export const until = async (ready: () => boolean, millis = 5000): Promise<void> => {
  const deadline = Date.now() + millis
  while (!ready()) {
    if (Date.now() > deadline) throw new Error("timed out waiting")
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

/** How a promise ended: `resolved`, or the rejection as `{name}: {message}`. */
export const outcome = (promise: Promise<unknown>): Promise<string> =>
  promise.then(
    () => "resolved",
    (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error))
  )
