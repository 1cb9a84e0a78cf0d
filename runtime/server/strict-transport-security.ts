import { BootError } from "../routing/boot-error.js";

/** How long browsers keep to HTTPS for the app's host after a secure answer: one year, in seconds. */
export const DEFAULT_HSTS_MAX_AGE_S = 365 * 24 * 60 * 60;

/**
 * What `strictTransportSecurity` takes: the `Strict-Transport-Security` header production sends
 * on every answer to a secure request (docs/security.md).
 */
export interface StrictTransportSecurity {
  /** Seconds the browser keeps to HTTPS for the host; 0 tells it to forget. Default one year. */
  readonly maxAge?: number;
  /** Subdomains of the host too (they must all serve HTTPS). Default off. */
  readonly includeSubDomains?: boolean;
  /** Consent to browsers' preload lists (needs `includeSubDomains` and a year or more). Default off. */
  readonly preload?: boolean;
}

const SETTING = "strictTransportSecurity";

/**
 * The header's value for the setting, or undefined when none is sent: in `dev` never (a browser
 * would keep to HTTPS for `localhost` and every other app served there), and never with `false`.
 * Throws a `BootError` naming what is wrong.
 */
export function hstsHeader(setting: StrictTransportSecurity | false | undefined, dev: boolean): string | undefined {
  if (setting === false || dev) return undefined;
  const given = setting ?? {};
  if (typeof given !== "object" || given === null) throw new BootError(`${SETTING} takes { maxAge, includeSubDomains, preload } or false, not ${typeof given}.`);
  const maxAge = given.maxAge ?? DEFAULT_HSTS_MAX_AGE_S;
  if (!Number.isInteger(maxAge) || maxAge < 0) {
    throw new BootError(`${SETTING}.maxAge must be a whole number of seconds (0 or more), not ${String(maxAge)}.`);
  }
  if (given.preload === true && (given.includeSubDomains !== true || maxAge < DEFAULT_HSTS_MAX_AGE_S)) {
    throw new BootError(`${SETTING}.preload needs includeSubDomains: true and a maxAge of at least ${DEFAULT_HSTS_MAX_AGE_S} (a year): the preload lists take no less.`);
  }
  return `max-age=${maxAge}${given.includeSubDomains === true ? "; includeSubDomains" : ""}${given.preload === true ? "; preload" : ""}`;
}
