/**
 * A response cookie (spec 2.8): renders its own `Set-Cookie` string. Path=/, HttpOnly and
 * SameSite=Lax always; a browser-session lifetime (no Max-Age) unless `Cookie.expired`; never
 * Expires, Domain, a custom path or another SameSite. `secure` follows the request's scheme.
 */
export class Cookie {
  private constructor(
    readonly name: string,
    readonly value: string,
    readonly secure: boolean,
    private readonly expire: boolean,
  ) {}

  /** Checks the name against RFC 2616's token rule and the value against RFC 6265's cookie-octets. */
  static of(name: string, value: string, options: { readonly secure: boolean }): Cookie {
    checkName(name);
    checkValue(name, value);
    return new Cookie(name, value, options.secure, false);
  }

  /** A cookie that tells the browser to forget `name` at once (Max-Age=0). */
  static expired(name: string, options: { readonly secure: boolean }): Cookie {
    checkName(name);
    return new Cookie(name, "", options.secure, true);
  }

  /** The `Set-Cookie` header value. */
  render(): string {
    return (
      `${this.name}=${this.value}; Path=/; HttpOnly; SameSite=Lax` +
      (this.secure ? "; Secure" : "") +
      (this.expire ? "; Max-Age=0" : "")
    );
  }

  toString(): string {
    return this.render();
  }
}

// RFC 2616 token: any CHAR except CTLs and separators ()<>@,;:\"/[]?={} SP HT.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function checkName(name: string): void {
  if (!TOKEN.test(name)) {
    throw new Error(
      `Cookie name ${JSON.stringify(name)} is not an RFC 2616 token: use letters, digits and !#$%&'*+-.^_\`|~ only.`,
    );
  }
}

function checkValue(name: string, value: string): void {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    // cookie-octet = %x21 / %x23-2B / %x2D-3A / %x3C-5B / %x5D-7E
    const ok = c === 0x21 || (c >= 0x23 && c <= 0x2b) || (c >= 0x2d && c <= 0x3a) || (c >= 0x3c && c <= 0x5b) || (c >= 0x5d && c <= 0x7e);
    if (!ok) {
      throw new Error(
        `Cookie ${name}: its value has ${describe(c)} at index ${i}, which RFC 6265 does not allow ` +
          `in a cookie value; encode the value first (for example as base64url).`,
      );
    }
  }
}

function describe(code: number): string {
  if (code === 0x20) return "a space";
  if (code === 0x22) return 'a double quote (")';
  if (code === 0x2c) return "a comma";
  if (code === 0x3b) return "a semicolon";
  if (code === 0x5c) return "a backslash";
  if (code < 0x20 || code === 0x7f) return `the control character U+${code.toString(16).padStart(4, "0").toUpperCase()}`;
  return `the character ${JSON.stringify(String.fromCharCode(code))}`;
}

/**
 * The values of every cookie named `name` in a request's Cookie header. More than one value
 * means the header is ambiguous; callers decide what that means for them.
 */
export function requestCookies(header: string | undefined, name: string): string[] {
  if (header === undefined || header === "") return [];
  let found: string[] | undefined;
  let start = 0;
  // Read in place: a pair's name is compared where it stands and only a wanted value is cut out
  // (cutting and trimming every pair's name cost a browser route three strings per cookie).
  while (start < header.length) {
    let end = header.indexOf(";", start);
    if (end === -1) end = header.length;
    const at = skipSpace(header, start, end);
    if (namedAt(header, at, end, name)) {
      const eq = skipSpace(header, at + name.length, end);
      if (eq < end && header.charCodeAt(eq) === 61 /* "=" */) {
        const value = trimmed(header, eq + 1, end);
        if (found === undefined) found = [value];
        else found.push(value);
      }
    }
    start = end + 1;
  }
  return found ?? [];
}

/** Whether `name` is written at `at` (before `end`): `startsWith` without its call, which cost more than the loop. */
function namedAt(text: string, at: number, end: number, name: string): boolean {
  if (at + name.length > end) return false;
  for (let k = 0; k < name.length; k++) {
    if (text.charCodeAt(at + k) !== name.charCodeAt(k)) return false;
  }
  return true;
}

/** The first index from `from` (before `end`) that is not white space as `String.prototype.trim` sees it. */
function skipSpace(text: string, from: number, end: number): number {
  let i = from;
  while (i < end && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** `text.slice(from, end).trim()`, cutting once. */
function trimmed(text: string, from: number, end: number): string {
  const first = skipSpace(text, from, end);
  let last = end;
  while (last > first && isSpace(text.charCodeAt(last - 1))) last--;
  return text.slice(first, last);
}

/** White space and line terminators, as `trim` removes them. */
function isSpace(code: number): boolean {
  if (code <= 0xff) return code === 0x20 || (code >= 0x09 && code <= 0x0d) || code === 0xa0;
  return /\s/.test(String.fromCharCode(code));
}
