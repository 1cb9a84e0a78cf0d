import { BootError } from "../routing/boot-error.js";

/** How log lines are written: one JSON object per line (pino), or lines for a person to read. */
export type LogFormat = "json" | "text";

/** The levels, lowest first: a logger writes its level and those above it; `silent` writes nothing. */
export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The variables that choose them. */
export const LOG_FORMAT_ENV = "FW_LOG_FORMAT";
export const LOG_LEVEL_ENV = "FW_LOG_LEVEL";

/** pino's numbers for the levels (the JSON format writes the label, the numbers order them). */
export const LEVEL_VALUES: Readonly<Record<LogLevel, number>> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity };

export interface LogSettings {
  readonly format: LogFormat;
  readonly level: LogLevel;
}

/**
 * The settings in force: the app's own (`logFormat`, `logLevel`), else `FW_LOG_FORMAT` and
 * `FW_LOG_LEVEL`, else JSON in production and text in dev, at `info`. A value that is none of
 * them stops the boot, naming the variable and the values it takes.
 */
export function logSettings(given: Partial<LogSettings>, env: NodeJS.ProcessEnv, dev: boolean): LogSettings {
  const format = given.format ?? checked(LOG_FORMAT_ENV, env[LOG_FORMAT_ENV], ["json", "text"]) ?? (dev ? "text" : "json");
  const level = given.level ?? checked(LOG_LEVEL_ENV, env[LOG_LEVEL_ENV], LOG_LEVELS) ?? "info";
  if (!(["json", "text"] as const).includes(format)) throw new BootError(`logFormat must be "json" or "text", not ${JSON.stringify(format)}.`);
  if (!LOG_LEVELS.includes(level)) throw new BootError(`logLevel must be one of ${LOG_LEVELS.join(", ")}, not ${JSON.stringify(level)}.`);
  return { format, level };
}

function checked<T extends string>(name: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const lower = value.trim().toLowerCase();
  if ((allowed as readonly string[]).includes(lower)) return lower as T;
  throw new BootError(`${name}=${JSON.stringify(value)} is not one of ${allowed.join(", ")}.`);
}
