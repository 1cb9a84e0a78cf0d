import { BootError } from "../routing/boot-error.js";

/** The variables that turn metrics on (both may be set). */
export const METRICS_TOKEN_ENV = "FW_METRICS_TOKEN";
export const METRICS_PORT_ENV = "FW_METRICS_PORT";
export const METRICS_HOST_ENV = "FW_METRICS_HOST";
/** `on` adds the garbage collections' durations (off by default: observing them costs every collection, bench/FINDINGS.md 32). */
export const METRICS_GC_ENV = "FW_METRICS_GC";
/** Where the app's own port serves them (with the token). */
export const METRICS_PATH = "/fw/metrics";
/** The shortest token taken: a guessable one would publish the app's traffic. */
export const MIN_METRICS_TOKEN = 16;

/**
 * Prometheus metrics, when configured: `token` serves them at `/fw/metrics` on the app's port to
 * a request that sends `Authorization: Bearer <token>` (any other gets the 404 every unknown path
 * gets); `port` serves them on a port of their own (`/metrics`, on `host`, loopback unless
 * `FW_METRICS_HOST` says otherwise), with the token required there too when one is set.
 */
export interface MetricsSettings {
  readonly token: string | undefined;
  readonly port: number | undefined;
  readonly host: string;
  /** Record each garbage collection's duration (`nodejs_gc_duration_seconds`): `FW_METRICS_GC=on`. */
  readonly gc: boolean;
}

/** The settings from the environment; undefined when neither variable is set (metrics off: fw/metrics is never loaded). */
export function metricsSettings(env: NodeJS.ProcessEnv): MetricsSettings | undefined {
  const token = nonEmpty(env[METRICS_TOKEN_ENV]);
  const portText = nonEmpty(env[METRICS_PORT_ENV]);
  if (token === undefined && portText === undefined) return undefined;
  if (token !== undefined && token.length < MIN_METRICS_TOKEN) {
    throw new BootError(`${METRICS_TOKEN_ENV} must be at least ${MIN_METRICS_TOKEN} characters (it guards the app's metrics); make one with: node -e "console.log(require('crypto').randomBytes(24).toString('base64url'))"`);
  }
  let port: number | undefined;
  if (portText !== undefined) {
    port = Number(portText);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new BootError(`${METRICS_PORT_ENV}=${JSON.stringify(portText)} is not a port number (0-65535).`);
  }
  return { token, port, host: nonEmpty(env[METRICS_HOST_ENV]) ?? "127.0.0.1", gc: gcWanted(env[METRICS_GC_ENV]) };
}

function gcWanted(text: string | undefined): boolean {
  const value = nonEmpty(text);
  if (value === undefined || value === "off") return false;
  if (value === "on") return true;
  throw new BootError(`${METRICS_GC_ENV}=${JSON.stringify(value)} is neither "on" nor "off": "on" records each garbage collection's duration (nodejs_gc_duration_seconds), "off" (the default) does not.`);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}
