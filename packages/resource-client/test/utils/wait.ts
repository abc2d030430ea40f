/** `event`, or a failure naming `what` once `millis` pass on the real clock (so it holds under TestClock too). */
export const within = <A>(event: Promise<A>, what: string, millis = 10_000): Promise<A> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${millis} ms waiting for ${what}`)), millis)
  })
  return Promise.race([event, timeout]).finally(() => clearTimeout(timer))
}

/** How a promise ended: `resolved`, or the rejection as `{name}: {message}`. */
export const outcome = (promise: Promise<unknown>): Promise<string> =>
  promise.then(
    () => "resolved",
    (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error))
  )
