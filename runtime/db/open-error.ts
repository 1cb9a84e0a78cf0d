/**
 * The database could not be opened: a `DATABASE_URL` nobody answers, an embedded directory in
 * use by another process or damaged. The message names the cause and what to do; `DbApp` turns
 * it into a boot failure (`fw: cannot boot: …`, exit 1).
 */
export class CannotOpenDatabase extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "CannotOpenDatabase";
  }
}
