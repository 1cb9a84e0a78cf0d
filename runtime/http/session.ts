/**
 * A small map of strings carried in one signed cookie (spec 2.9). Immutable: every change
 * returns a new session, which a handler hands back with `Response.withSession`.
 *
 * Three stores: entries (kept until removed), pending flash (written now, delivered on the next
 * request only) and incoming flash (came in on this request, readable now, dropped from what
 * goes out). Names beginning with "_" are the framework's (the CSRF token lives in `_csrf`).
 */
export class Session {
  /** @internal use `Session.empty` and the methods below. */
  constructor(
    readonly entries: ReadonlyMap<string, string>,
    readonly pending: ReadonlyMap<string, string>,
    readonly incoming: ReadonlyMap<string, string>,
    /** When the session was first written (ms since the epoch); undefined until it is. */
    readonly issuedAt: number | undefined,
  ) {}

  static readonly empty = new Session(new Map(), new Map(), new Map(), undefined);

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
    return new Session(entries, this.pending, this.incoming, this.issuedAt);
  }

  remove(name: string): Session {
    checkName(name, "remove");
    if (!this.entries.has(name)) return this;
    const entries = new Map(this.entries);
    entries.delete(name);
    return new Session(entries, this.pending, this.incoming, this.issuedAt);
  }

  /** Stores `value` for the next request only. */
  flash(name: string, value: string): Session {
    checkName(name, "flash");
    const pending = new Map(this.pending).set(name, value);
    return new Session(this.entries, pending, this.incoming, this.issuedAt);
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
    return new Session(new Map(), new Map(), this.incoming, undefined);
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
  return new Session(entries, session.pending, session.incoming, session.issuedAt);
}

/** A copy without the reserved entry `name`. Not part of the public API. */
export function withoutReserved(session: Session, name: string): Session {
  if (!session.entries.has(name)) return session;
  const entries = new Map(session.entries);
  entries.delete(name);
  return new Session(entries, session.pending, session.incoming, session.issuedAt);
}
