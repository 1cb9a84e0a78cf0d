import type { RequestHeaders } from "../http/headers.js";
import type { Session } from "../http/session.js";
import { claimOf, sessionUser } from "./session-user.js";
import type { UserFields, Users } from "./users.js";

/** What a read is asked for: a request's session, and the headers that tell one request from another (absent: a hand-made record, never cached). */
export interface Asked {
  readonly session: Session;
  readonly headers?: RequestHeaders;
}

/** One read of the store, and what it found once it settled. */
interface Read<U> {
  readonly generation: number;
  readonly user: Promise<U | undefined>;
  settled: { readonly user: U | undefined } | undefined;
}

/**
 * The user a request's session signs in, asked of the users store at most once per request:
 * the guard, `identify`, `auth.currentUser` and `auth.userOf` (in the handler and the layout)
 * share one read. One request is every copy made of what arrived (the guard's, the handler's,
 * the layout's, an error page's request), and they share the headers it arrived with: the
 * reads are kept beside those headers, so they go when the request does. A socket's requests
 * share its handshake's headers: its user is the handshake's, until a session ending heard in
 * this process (`generation` moves on) makes the next ask read again. The session's claim is
 * part of the key, so a request whose session changed is read anew.
 */
export class SessionReads<U extends UserFields> {
  readonly #reads = new WeakMap<RequestHeaders, Map<string, Read<U>>>();

  constructor(
    private readonly users: Users<U>,
    private readonly maxAgeMs: number,
    private readonly generation: () => number,
  ) {}

  /** The user the request's session signs in: read once per request, or now for a record without headers. */
  of(request: Asked): Promise<U | undefined> {
    const key = keyOf(request.session);
    const headers = request.headers;
    if (key === undefined) return Promise.resolve(undefined);
    if (headers === undefined) return this.fresh(request.session);
    let reads = this.#reads.get(headers);
    if (reads === undefined) this.#reads.set(headers, (reads = new Map()));
    const generation = this.generation();
    const held = reads.get(key);
    if (held !== undefined && held.generation === generation) return held.user;
    const read: Read<U> = { generation, user: this.fresh(request.session), settled: undefined };
    const kept = reads;
    kept.set(key, read);
    read.user.then(
      (user) => (read.settled = { user }),
      // A store that failed is asked again next time.
      () => kept.get(key) === read && kept.delete(key),
    );
    return read.user;
  }

  /**
   * What the request's read found, when one has settled and no ending was heard since; undefined
   * when none has (answered at once, for display: an owner's Edit link).
   */
  known(request: Asked): { readonly user: U | undefined } | undefined {
    const key = keyOf(request.session);
    if (key === undefined) return { user: undefined };
    const read = request.headers === undefined ? undefined : this.#reads.get(request.headers)?.get(key);
    return read !== undefined && read.generation === this.generation() ? read.settled : undefined;
  }

  /** Asked of the store now, whatever was read before (a socket's check after its handshake). */
  fresh(session: Session): Promise<U | undefined> {
    return sessionUser(this.users, session, this.maxAgeMs);
  }
}

/** What a session's answer depends on: its claim and its issue time; undefined when it names nobody. */
function keyOf(session: Session): string | undefined {
  const claim = claimOf(session);
  return claim === undefined ? undefined : `${claim.id} ${claim.epoch} ${claim.sessionId} ${session.issuedAt ?? ""}`;
}
