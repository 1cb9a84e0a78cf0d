/** The longest return-to path followed after sign-in; longer ones go to "/". */
export const MAX_NEXT_LENGTH = 2048;

/** How many layers of percent-encoding are looked through before giving up on a path. */
const DECODE_LAYERS = 3;

/**
 * Where to send a user after sign-in: `next` when it is a path on this site, else "/". Only a
 * same-origin relative path is followed: `//evil.com` and `/\evil.com` (browsers read both as
 * another host), any scheme (`https:`, `javascript:`), whitespace and control characters
 * (browsers drop tabs and newlines, turning `/\t/evil.com` into `//evil.com`), and the same
 * tricks percent-encoded (`/%2F%2Fevil.com`, `/%5Cevil.com`, `/%09/evil.com`), at any depth.
 */
export function safeNext(next: string | undefined): string {
  return next !== undefined && isLocalPath(next) ? next : "/";
}

function isLocalPath(text: string): boolean {
  // As sent, a path is printable ASCII (a browser percent-encodes the rest): no space, no control.
  if (text.length > MAX_NEXT_LENGTH || !/^[\x21-\x7e]*$/.test(text)) return false;
  let layer = text;
  for (let depth = 0; depth <= DECODE_LAYERS; depth++) {
    if (!oneSlashPath(layer)) return false;
    const inner = percentDecoded(layer);
    if (inner === undefined) return false;
    if (inner === layer) return true;
    layer = inner;
  }
  return false; // still encoded after every layer looked through: not worth the risk
}

/** Starts with exactly one "/", and holds no backslash and no control character (C0, DEL, C1). */
function oneSlashPath(path: string): boolean {
  return path.startsWith("/") && !path.startsWith("//") && !/[\\\x00-\x1f\x7f-\x9f]/.test(path);
}

function percentDecoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}
