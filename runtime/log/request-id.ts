import { randomInt, randomUUID } from "node:crypto";

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
 * one. Two such headers arrive joined by ", " and are replaced too.
 */
export function requestIdOf(sent: string | string[] | undefined): string {
  return typeof sent === "string" && WELL_FORMED.test(sent) ? sent : freshRequestId();
}

/**
 * A fresh request id, in a UUID's form (`8-4-4-4-12` hex digits, version 4): the first 27
 * characters are drawn at random, the last 9 are a counter started at a random point. When the
 * counter runs out (after 900 million ids at most) the random part is drawn again. Ids are unique
 * within a process and, by the random part, across processes and restarts.
 *
 * Not a fresh `randomUUID()` a request: an id labels log lines and is no secret (a client may
 * choose its own), and drawing and formatting 16 random bytes was the single largest cost fw
 * added to a plain-text request (~1,650 of ~65,000 instructions: bench/FINDINGS.md 46). The
 * counter is written in decimal, whose digits are hex digits too. Nor is it `String(counter)` a
 * request: V8 keeps the text of each number it writes in a cache that lives in the old
 * generation, so every id's digits outlived the request and were promoted (32 bytes a request,
 * and twice the scavenge time). The last three digits come from a table made once; the rest
 * (`head`) is written once every thousand ids.
 */
export function freshRequestId(): string {
  if (low === 1000) nextThousand();
  const id = head + (LAST_DIGITS[low] as string);
  low += 1;
  return id;
}

/** "000" to "999": the three digits that change with every id. */
const LAST_DIGITS: readonly string[] = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, "0"));
/** The counter's first six digits: 100000 to 999999, so every id has the same length. */
const FIRST_HIGH = 100_000;
const LAST_HIGH = 999_999;

/** A UUID's first 27 characters: its version and variant digits, and 19 random hex digits. */
function drawn(): string {
  return randomUUID().slice(0, 27);
}

function nextThousand(): void {
  if (high === LAST_HIGH) {
    randomPart = drawn();
    high = FIRST_HIGH;
  } else high += 1;
  head = randomPart + String(high);
  low = 0;
}

let randomPart = drawn();
/** Where this process's counter starts: well below LAST_HIGH, so it counts long before it wraps. */
let high = FIRST_HIGH + randomInt(0, 400_000);
let head = randomPart + String(high);
let low = 0;
