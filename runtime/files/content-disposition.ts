/**
 * `Content-Disposition` for a stored file (RFC 6266): `inline` or `attachment`, with the name
 * twice: `filename*=UTF-8''…` (RFC 8187, percent-encoded UTF-8, read by every current browser)
 * and a plain `filename="…"` fallback of printable ASCII (other characters become `_`, quotes and
 * backslashes too), for clients that read only that.
 */
export function contentDisposition(kind: "inline" | "attachment", name: string): string {
  return `${kind}; filename="${asciiFallback(name)}"; filename*=UTF-8''${encodeRfc8187(name)}`;
}

/** The name in printable ASCII: accents dropped where a letter is left (é → e), anything else `_`. */
export function asciiFallback(name: string): string {
  const plain = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/gu, "")
    .replace(/[^\x20-\x7e]|["\\%;]/gu, "_");
  return plain === "" ? "file" : plain;
}

/** RFC 8187 `value-chars`: attr-char as it is, everything else percent-encoded UTF-8. */
function encodeRfc8187(name: string): string {
  return encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
