import { TextLogger, type LineLevel, type Logger } from "./logger.js";

/** Until an app serves, lines go to the process's stdout and stderr as text, at `info`. */
let current: Logger = new TextLogger({
  sink: { out: (line) => process.stdout.write(`${line}\n`), err: (line) => process.stderr.write(`${line}\n`) },
  level: "info",
  stacks: false,
});

/** @internal Makes `logger` the process's (what `HttpApp` does when it starts serving). */
export function setProcessLogger(logger: Logger): void {
  current = logger;
}

/** @internal The process's logger: the serving app's, in its format and level. */
export function processLogger(): Logger {
  return current;
}

function at(level: LineLevel) {
  return (message: string, fields?: Readonly<Record<string, unknown>>): void => current.write(level, message, fields);
}

/**
 * The app's log, in the serving app's format (JSON in production, text in dev: `FW_LOG_FORMAT`)
 * and level (`FW_LOG_LEVEL`): `log.info("order placed", { orderId })`. A line written while a
 * request is handled carries its `requestId` when the request context is on (an app with
 * jobs); pass `{ requestId: request.id }` to be sure. Values of keys such as `password`,
 * `token`, `cookie` are written as "[redacted]"; keep other secrets and personal data out.
 */
export const log = {
  trace: at("trace"),
  debug: at("debug"),
  info: at("info"),
  warn: at("warn"),
  error: at("error"),
  fatal: at("fatal"),
} as const;
