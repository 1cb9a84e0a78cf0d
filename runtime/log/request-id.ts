import { randomUUID } from "node:crypto";

/** The header a request id arrives in (from a proxy or a client) and is sent back in. */
export const REQUEST_ID_HEADER = "x-request-id";

/**
 * What a request id from outside may be: 1 to 128 characters of letters, digits and
 * `- _ . : / + = @ ~` (a UUID, a ULID, a proxy's `host/1234-5`, a base64 token all fit). Nothing
 * that could end a log field or forge a line (spaces, quotes, commas, control characters), nor
 * something long enough to drown a log line.
 */
const WELL_FORMED = /^[A-Za-z0-9\-_.:/+=@~]{1,128}$/;

/**
 * The request's id: the `X-Request-Id` it arrived with when that is well-formed (a proxy in
 * front, or the client, chose it: the same id then ties their log lines to fw's), else a fresh
 * UUID. Two such headers arrive joined by ", " and are replaced too.
 */
export function requestIdOf(sent: string | string[] | undefined): string {
  return typeof sent === "string" && WELL_FORMED.test(sent) ? sent : randomUUID();
}
