/** `config/mcpServer/reload`. */
import { EmptyObject } from "./threads.js"

/** `config/mcpServer/reload` params. */
export const ConfigReloadParams = EmptyObject
/** `config/mcpServer/reload` result. */
export const ConfigReloadResult = EmptyObject
