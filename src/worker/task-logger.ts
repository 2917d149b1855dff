// A logger that adds fixed fields (a task's id and name) to every line, for ctx.logger and the worker's own lines.

import type { Logger } from "../logger.js";

/** Wraps `logger` so that every call carries `fields` (the call's own fields win). */
export function loggerWith(logger: Logger, fields: Record<string, unknown>): Logger {
  const wrap = (level: keyof Logger) => (message: string, more?: Record<string, unknown>) => logger[level](message, { ...fields, ...more });
  return { debug: wrap("debug"), info: wrap("info"), warn: wrap("warn"), error: wrap("error") };
}
