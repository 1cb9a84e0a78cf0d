import type { IncomingMessage } from "node:http";
import type { Answer } from "./answer.js";
import { plainAnswer } from "./problem.js";

/**
 * The most header fields one request may carry. Node keeps the first 2000 and silently drops
 * the rest; fw asks Node for one more than this (`server.maxHeadersCount`) so that a request
 * over it is refused with 431 instead of served with headers missing. Apache's default, far
 * above the 15-30 a browser sends behind a proxy or two.
 */
export const MAX_HEADERS = 100;

/**
 * The longest request target (path and query) fw serves, in bytes; a longer one is answered 414.
 * Node refuses a request line plus headers over 16 KiB on its own (431).
 */
export const MAX_TARGET_LENGTH = 8 * 1024;

/**
 * The plain-text refusal for a request over fw's own limits, or undefined when it is within
 * them. Checked before dispatch: such a request reaches no route, and its connection closes.
 */
export function overLimits(request: IncomingMessage): Answer | undefined {
  const status =
    (request.url?.length ?? 0) > MAX_TARGET_LENGTH ? 414 : request.rawHeaders.length > 2 * MAX_HEADERS ? 431 : undefined;
  if (status === undefined) return undefined;
  return plainAnswer(status, true);
}
