// The runner's loggers: one human-readable line per event on a terminal, JSON lines otherwise (for log shippers),
// chosen by --log-format or by whether stderr is a TTY.

import { jsonLogger, type Logger } from "../logger.js";

export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogFormat = "auto" | "pretty" | "json";

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const COLOR: Record<LogLevel, string> = { debug: "\x1b[2m", info: "\x1b[36m", warn: "\x1b[33m", error: "\x1b[31m" };

/** `12:00:01.123 INFO  task back to pending taskId=… attempts=2`, one line per event. `color` adds ANSI colours to the level. */
function prettyLogger(level: LogLevel = "info", write: (line: string) => void = (l) => process.stderr.write(l), color = false): Logger {
  const log = (at: LogLevel) => (message: string, fields?: Record<string, unknown>) => {
    if (ORDER[at] < ORDER[level]) return;
    const time = new Date().toISOString().slice(11, 23);
    const label = at.toUpperCase().padEnd(5);
    const rest = Object.entries(fields ?? {})
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => `${key}=${formatValue(value)}`)
      .join(" ");
    write(`${time} ${color ? `${COLOR[at]}${label}\x1b[0m` : label} ${message}${rest ? ` ${rest}` : ""}\n`);
  };
  return { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };
}

interface LoggerChoice {
  format: LogFormat;
  level: LogLevel;
  /** Whether the destination is a terminal; decides "auto". */
  isTTY: boolean;
  write?: (line: string) => void;
}

/** The logger for a format: "auto" is pretty on a TTY and JSON lines otherwise. */
export function chooseLogger(choice: LoggerChoice): Logger {
  const pretty = choice.format === "pretty" || (choice.format === "auto" && choice.isTTY);
  const color = pretty && choice.isTTY && !process.env.NO_COLOR;
  return pretty ? prettyLogger(choice.level, choice.write, color) : jsonLogger(choice.level, choice.write);
}

function formatValue(value: unknown): string {
  if (value instanceof Error) return JSON.stringify(value.message);
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "string") return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  if (Array.isArray(value) && value.length > 10) return `[${value.slice(0, 10).map(formatValue).join(",")},…+${value.length - 10}]`;
  return JSON.stringify(value) ?? String(value);
}
