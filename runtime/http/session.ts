/** The key only this module holds: what `Session`'s constructor checks. */
const MAKER: unique symbol = Symbol("fw.Session");

type Make = (
  entries: ReadonlyMap<string, string>,
  pending: ReadonlyMap<string, string>,
  incoming: ReadonlyMap<string, string>,
  issuedAt: number | undefined,
) => Session;

let make: Make;

/**
 * A session from its stores: fw's own way to make one (the codec decoding a cookie, the reserved
 * entries). Not part of the public API: it bypasses the reserved-name check.
 */
export function makeSession(...stores: Parameters<Make>): Session {
  return make(...stores);
}

/**
 * A small map of strings carried in one signed cookie (spec 2.9). Immutable: every change
 * returns a new session, which a handler hands back with `Response.withSession`.
 *
 * Three stores: entries (kept until removed), pending flash (written now, delivered on the next
 * request only) and incoming flash (came in on this request, readable now, dropped from what
 * goes out). Names beginning with "_" are the framework's (the CSRF token lives in `_csrf`).
 */
export class Session {
  /**
   * Private, and checked at run time too: a session made from outside could hold reserved names
   * (`_csrf`) that `set` refuses. Start from `Session.empty` (or the request's session) and use
   * the methods below; fw's own code makes sessions through `makeSession`.
   */
  private constructor(
    key: typeof MAKER,
    readonly entries: ReadonlyMap<string, string>,
    readonly pending: ReadonlyMap<string, string>,
    readonly incoming: ReadonlyMap<string, string>,
    /** When the session was first written (ms since the epoch); undefined until it is. */
    readonly issuedAt: number | undefined,
  ) {
    if (key !== MAKER) {
      throw new Error("Session cannot be constructed: start from Session.empty or request.session and use set, remove and flash.");
    }
  }

  static {
    make = (entries, pending, incoming, issuedAt) => new Session(MAKER, entries, pending, incoming, issuedAt);
  }

  static readonly empty = makeSession(new Map(), new Map(), new Map(), undefined);

  /** The entry `name`, or undefined. */
  get(name: string): string | undefined {
    return this.entries.get(name);
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  /** Names of the application's own entries (reserved names left out). */
  get names(): string[] {
    return [...this.entries.keys()].filter((name) => !isReserved(name));
  }

  set(name: string, value: string): Session {
    checkName(name, "set");
    const entries = new Map(this.entries).set(name, value);
    return makeSession(entries, this.pending, this.incoming, this.issuedAt);
  }

  remove(name: string): Session {
    checkName(name, "remove");
    if (!this.entries.has(name)) return this;
    const entries = new Map(this.entries);
    entries.delete(name);
    return makeSession(entries, this.pending, this.incoming, this.issuedAt);
  }

  /** Stores `value` for the next request only. */
  flash(name: string, value: string): Session {
    checkName(name, "flash");
    const pending = new Map(this.pending).set(name, value);
    return makeSession(this.entries, pending, this.incoming, this.issuedAt);
  }

  /** The flash value that came in with this request (written by the previous one). */
  flashed(name: string): string | undefined {
    return this.incoming.get(name);
  }

  /**
   * An empty session that starts anew: no entries (the CSRF token included, so a new one is
   * minted), no pending flash, a new issue time. This request's incoming flash stays readable.
   */
  cleared(): Session {
    return makeSession(new Map(), new Map(), this.incoming, undefined);
  }

  /** True when nothing would be kept: no entries and no pending flash. */
  get isEmpty(): boolean {
    return this.entries.size === 0 && this.pending.size === 0;
  }
}

export function isReserved(name: string): boolean {
  return name.startsWith("_");
}

function checkName(name: string, verb: string): void {
  if (isReserved(name)) {
    throw new Error(
      `Session: cannot ${verb} "${name}": names beginning with "_" are reserved by fw; choose another name.`,
    );
  }
}

/** Sets a reserved entry (the framework's own, such as `_csrf`). Not part of the public API. */
export function withReserved(session: Session, name: string, value: string): Session {
  const entries = new Map(session.entries).set(name, value);
  return makeSession(entries, session.pending, session.incoming, session.issuedAt);
}

/** A copy without the reserved entry `name`. Not part of the public API. */
export function withoutReserved(session: Session, name: string): Session {
  if (!session.entries.has(name)) return session;
  const entries = new Map(session.entries);
  entries.delete(name);
  return makeSession(entries, session.pending, session.incoming, session.issuedAt);
}

/** A copy without the pending flash `name` (what goes out when the cookie would overflow). Not part of the public API. */
export function withoutFlash(session: Session, name: string): Session {
  if (!session.pending.has(name)) return session;
  const pending = new Map(session.pending);
  pending.delete(name);
  return makeSession(session.entries, pending, session.incoming, session.issuedAt);
}
