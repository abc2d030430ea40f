export const run = async (): Promise<never> => {
  throw new Error("todo")
}
