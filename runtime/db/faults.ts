import { BadRequest, ServiceUnavailable } from "../http/failure.js";

/** SQLSTATE classes and codes that mean the connection, not the statement, failed. */
const CONNECTION_STATES = /^(08|57P0[123]|53300)/;
/** Node socket errors on the way to the server. */
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN"]);
/** pg's own messages when a connection dies or cannot be had in time. */
const DRIVER_MESSAGES = /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended|not queryable/i;

/** True when `error` says the database could not be reached (rather than that the SQL failed). */
export function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && (SOCKET_CODES.has(code) || CONNECTION_STATES.test(code))) return true;
  if (error instanceof AggregateError) return error.errors.some(isConnectionError);
  return DRIVER_MESSAGES.test(error.message);
}

/** The 503 a request gets while the database is away; the cause stays for the log. */
export function unavailable(cause: unknown): ServiceUnavailable {
  return new ServiceUnavailable("The database cannot be reached right now. Please try again in a few seconds.", 5, cause);
}

/**
 * Tells the log once when the database goes away and once when it is back, not once per
 * request: a reachable → unreachable → reachable story an operator can follow.
 */
export class Outage {
  private down = false;

  constructor(
    private readonly description: string,
    private readonly log: (line: string) => void,
  ) {}

  failed(cause: unknown): void {
    if (this.down) return;
    this.down = true;
    const reason = cause instanceof Error ? cause.message : String(cause);
    this.log(`fw/db: lost ${this.description} (${reason}); requests that need it are answered 503 until it is back.`);
  }

  succeeded(): void {
    if (!this.down) return;
    this.down = false;
    this.log(`fw/db: ${this.description} is reachable again.`);
  }
}

/** Runs `work`, turning a connection failure into a 503 and noting the outage. */
export async function guarded<T>(outage: Outage, work: () => Promise<T>): Promise<T> {
  try {
    const result = await work();
    outage.succeeded();
    return result;
  } catch (error) {
    throw failure(outage, error);
  }
}

/**
 * What a failed statement throws, as `guarded` sees it: a connection failure becomes the 503
 * (and notes the outage); anything else is thrown as it is (the database answered, so it is up).
 */
export function failure(outage: Outage, error: unknown): unknown {
  if (error instanceof ServiceUnavailable) return error;
  if (!isConnectionError(error)) {
    outage.succeeded();
    return error;
  }
  outage.failed(error);
  return unavailable(error);
}

/**
 * What PostgreSQL's data exceptions (SQLSTATE class 22) say about a value, in words that name
 * no table or type: the statement was fine, a value sent with it was not.
 */
const DATA_PROBLEMS: Readonly<Record<string, string>> = {
  "22021": "a text contains a character the database cannot store (such as U+0000, the NUL character)",
  "22P05": "a text contains a character the database cannot store (such as U+0000, the NUL character)",
  "22003": "a number is out of the range its field allows",
  "22P02": "a value is not written as its field expects (a whole number, say)",
  "22001": "a text is longer than its field allows",
  "22007": "a date or time is not valid",
  "22008": "a date or time is out of range",
};

/**
 * A data exception (SQLSTATE class 22: bad encoding, a number out of range, text that is not a
 * number) of a statement that was sent values, as the 400 it is: the values came from the
 * request (a NUL byte in a field, a key past bigint), and a bad request must not be a 500 with
 * an incident in the log. A statement without values that raises one (`SELECT 1/0`) is the
 * app's own mistake and stays as it is.
 */
export function dataProblem(error: unknown, params: readonly unknown[]): BadRequest | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (params.length === 0 || typeof code !== "string" || !code.startsWith("22")) return undefined;
  const problem = DATA_PROBLEMS[code] ?? "a value does not fit its field";
  return new BadRequest(`A value in this request cannot be stored or looked up: ${problem}. Correct it and send the request again.`);
}

/** Runs one statement that was sent `params`, answering a data exception of theirs as `dataProblem`'s 400. */
export async function withValues<T>(params: readonly unknown[], statement: () => Promise<T>): Promise<T> {
  try {
    return await statement();
  } catch (error) {
    throw dataProblem(error, params) ?? error;
  }
}
