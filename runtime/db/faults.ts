import { ServiceUnavailable } from "../http/failure.js";

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
    if (error instanceof ServiceUnavailable) throw error;
    if (!isConnectionError(error)) {
      outage.succeeded();
      throw error;
    }
    outage.failed(error);
    throw unavailable(error);
  }
}
