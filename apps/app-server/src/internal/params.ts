/** The per-thread config override of `thread/start`, as the protocol defines it. */
import { AppServer } from "@mcp-resources/protocol"

/** The per-thread config override of `thread/start`. */
export const ThreadConfig = AppServer.ThreadConfig

/** The per-thread config override of `thread/start`. */
export type ThreadConfig = AppServer.ThreadConfig
