import type { Logger as Pino, DestinationStream } from "pino";
import { stackOf, summary } from "../http/error-log.js";
import { accessLineWriter } from "./json-access-line.js";
import type { AccessEntry, FailureEntry, LineLevel, LineSink, Logger } from "./logger.js";
import { currentRequestId } from "./request-context.js";
import { LEVEL_VALUES, type LogLevel } from "./settings.js";

export interface JsonLoggerOptions {
  readonly level: LogLevel;
  /** Add each failure's stack (`logStacks`). */
  readonly stacks: boolean;
  /**
   * Where the lines go: the process's stdout (Node's `process.stdout`, the default), or a console
   * that takes lines (an app whose `console` was replaced: tests, tools).
   */
  readonly sink?: LineSink;
}

/**
 * Field names an app's own `log` lines never show the value of, at the top level or one level
 * down: a `log.info("signed in", { user })` whose `user` carries its `password` writes
 * `"password":"[redacted]"`. fw's own lines never carry such values in the first place.
 */
export const REDACTED_KEYS = ["password", "passwordHash", "token", "secret", "cookie", "authorization", "apiKey", "session", "csrf"] as const;

/**
 * The JSON format, through pino (but the access line: json-access-line.ts writes pino's line by hand): one JSON object per line on stdout, `level` as its label, `time`
 * in milliseconds since the epoch (pino's own: an ISO 8601 date costs every line about a
 * microsecond more, a fifth of the access log's cost), `pid` and `hostname`, then the entry's members and `msg`. pino because it is made
 * for exactly this: the fastest maintained JSON logger for Node, level filtering before any work,
 * and redaction of named keys.
 *
 * The lines go through `process.stdout`, not pino's own synchronous writer on fd 1: that writer
 * meets a full pipe (a log collector that falls behind) on a non-blocking stdout with EAGAIN and
 * sleeps the whole process 100 ms a try until the pipe drains, so every request and even SIGTERM
 * waited on the reader (spec/ops/logs.test.ts). Node's stdout writes a line at once while the pipe
 * has room (a file or a terminal: always, synchronously) and queues it in memory while it has not.
 */
export async function jsonLogger(options: JsonLoggerOptions): Promise<Logger> {
  const { default: pino } = await import("pino");
  const sink = options.sink;
  const destination: DestinationStream = sink === undefined ? process.stdout : { write: (line: string) => sink.out(line.replace(/\n$/, "")) };
  const level = options.level === "silent" ? "silent" : options.level;
  const base = pino(
    {
      level,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
  const paths = REDACTED_KEYS.flatMap((key) => [key, `*.${key}`]);
  const app = base.child({}, { redact: { paths, censor: "[redacted]" } });
  return new JsonLogger(base, app, destination, options);
}

class JsonLogger implements Logger {
  readonly format = "json";
  readonly level: LogLevel;
  readonly #threshold: number;
  readonly #pino: Pino;
  readonly #app: Pino;
  readonly #destination: DestinationStream;
  readonly #accessLine = accessLineWriter();
  readonly #stacks: boolean;

  constructor(pino: Pino, app: Pino, destination: DestinationStream, options: JsonLoggerOptions) {
    this.#pino = pino;
    this.#app = app;
    this.#destination = destination;
    this.level = options.level;
    this.#threshold = LEVEL_VALUES[options.level];
    this.#stacks = options.stacks;
  }

  enabled(level: LineLevel): boolean {
    return LEVEL_VALUES[level] >= this.#threshold;
  }

  access(entry: AccessEntry): void {
    // pino's line for `info({ requestId, method, path, route, status, ms }, "request")`, written by hand (json-access-line.ts).
    if (this.#threshold <= LEVEL_VALUES.info) this.#destination.write(this.#accessLine(entry));
  }

  failure(entry: FailureEntry): void {
    if (this.#threshold > LEVEL_VALUES.error) return;
    const stack = this.#stacks ? stackOf(entry.cause) : undefined;
    this.#pino.error({ requestId: entry.requestId ?? currentRequestId(), incident: entry.incident, error: summary(entry.cause), stack }, entry.what);
  }

  write(level: LineLevel, message: string, fields?: Readonly<Record<string, unknown>>): void {
    if (LEVEL_VALUES[level] < this.#threshold) return;
    const requestId = currentRequestId();
    const members = fields === undefined ? { requestId } : { requestId, ...errorsSummarised(fields) };
    this.#app[level](members, message);
  }
}

/** An Error among the fields is written as its summary (no stack, no enumerable extras). */
function errorsSummarised(fields: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) copy[key] = value instanceof Error ? summary(value) : value;
  return copy;
}
