/**
 * The one way an identifier enters SQL. Identifiers come only from build-time model names
 * (tables, columns), never from a request; still, each is checked before it is quoted, so a
 * name that could change the statement's meaning is refused instead of escaped.
 */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** PostgreSQL truncates longer names silently (NAMEDATALEN - 1). */
const MAX_LENGTH = 63;

/** `name` double-quoted for SQL; throws naming the culprit when it is not a plain identifier. */
export function quoteIdentifier(name: string): string {
  checkIdentifier(name);
  return `"${name}"`;
}

export function checkIdentifier(name: string, what = "identifier"): void {
  if (typeof name !== "string" || !IDENTIFIER.test(name) || name.length > MAX_LENGTH) {
    throw new Error(
      `fw/db: the ${what} ${JSON.stringify(name)} is not a plain SQL identifier (letters, digits and _, not starting with a digit, ` +
        `at most ${MAX_LENGTH} characters). Rename the model or field.`,
    );
  }
}
