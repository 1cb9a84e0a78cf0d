/**
 * A copy of `text` that shares no memory with the string it was cut from. V8 keeps a string cut
 * from a longer one (a field of a request body, a cookie in a header) as a view on the whole,
 * so keeping the cut keeps the whole alive: a 20-character email cut from a 1 MiB form holds
 * the megabyte for as long as it is kept. Whatever outlives its request (a form value a store
 * keeps, a rate limiter's key, a remembered cookie) is a copy. UTF-16 both ways: exact for any
 * string, lone surrogates included.
 */
export function ownCopy(text: string): string {
  return text === "" ? text : Buffer.from(text, "utf16le").toString("utf16le");
}
