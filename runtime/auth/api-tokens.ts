import { Forbidden } from "../http/failure.js";
import type { RequestHeaders } from "../http/headers.js";
import { withCurrentUser } from "../http/request.js";
import { API } from "../routing/kind.js";
import type { HttpRoute, Route } from "../routing/route.js";
import { sameSecret } from "./account-tokens.js";
import { freshApiToken, LAST_USE_RESOLUTION_MS, tokenParts, type ApiTokenRecord, type ApiTokenStore } from "./api-token-store.js";
import { Guarded } from "./guarded.js";
import { broadcastNamed, registerRoom, servesWithOtherProcesses, type LocalRoom } from "../ws/fan-out.js";

/** The room revocations travel on (a named room of the core's fan-out: every process hears them, on PostgreSQL through LISTEN/NOTIFY). */
export const TOKEN_REVOCATIONS_ROOM = "fw.auth:api-token-revocations";
/**
 * How long a process serving alone (no fan-out to other processes) trusts a token it read from
 * the store before reading it again: its revocations are its own (`revoke` forgets the token at
 * once); this bounds what a row deleted by hand could leave accepted. With other processes (a
 * fan-out installed: PostgreSQL's LISTEN/NOTIFY) every call reads the store instead, so a token
 * revoked in one process is refused by every other on its very next call: a message between
 * processes could arrive after that call.
 */
export const TOKEN_RECHECK_MS = 10_000;
/** Tokens a process remembers at most; past it, the one read longest ago is forgotten (and read again when used). */
export const MAX_REMEMBERED_TOKENS = 10_000;

/** A token as this process last read it from the store. */
interface Remembered {
  readonly record: ApiTokenRecord;
  readonly readAt: number;
}

/** What `routes` prints in the guard column of a route a token guards: `token:<scope>`. */
export const TOKEN_GUARD = "token";
/** Tokens one user may hold at once. */
export const MAX_TOKENS_PER_USER = 50;

/**
 * The app's scopes: each name (what a route's guard asks for, `posts:write`) and what it lets a
 * token do, said to the user who creates one. The names are the app's string-literal union
 * (`keyof typeof scopes`); the build checks each route's scope against it.
 */
export type Scopes<S extends string> = Readonly<Record<S, string>>;

/** What a scope's name may be: lower-case words joined by `:`, `.`, `_` or `-` (`posts:write`). */
const SCOPE_NAME = /^[a-z][a-z0-9]*(?:[:._-][a-z0-9]+)*$/;

/** The per-user API tokens of one form sign-in: the app's scopes, the store, and the guards made from them. */
export class ApiTokens<S extends string = string> implements LocalRoom {
  /**
   * Tokens read from the store lately, by selector (read longest ago first: a hit does not move
   * its token, what a recency order would cost every call): a call with one costs no statement.
   */
  readonly #remembered = new Map<string, Remembered>();
  /** Who each checked call acts for, by the headers it arrived with (every copy of one request shares them). */
  readonly #callers = new WeakMap<RequestHeaders, string>();
  /** Stands in for a missing record's hash, so a missing token costs the comparison a wrong one does. */
  readonly #nothing = "x".repeat(43);

  constructor(
    readonly scopes: Scopes<S>,
    private readonly store: ApiTokenStore,
    /** Where to create one, said in refusals ("/account"). */
    private readonly accountPath: string,
    private readonly now: () => number = Date.now,
  ) {
    for (const name of Object.keys(scopes)) {
      if (!SCOPE_NAME.test(name)) throw new Error(`formSignIn: the scope ${JSON.stringify(name)} is not a scope name: write lower-case words joined by ":", like "posts:write".`);
    }
    registerRoom(TOKEN_REVOCATIONS_ROOM, this);
  }

  /**
   * Revokes user `userId`'s token `selector`: deleted from the store, then forgotten by every
   * process (this one before answering). False when the user has no such token.
   */
  async revoke(userId: number, selector: string): Promise<boolean> {
    const revoked = await this.store.revoke(userId, selector);
    if (revoked) broadcastNamed(TOKEN_REVOCATIONS_ROOM, JSON.stringify({ s: selector }), undefined);
    return revoked;
  }

  /** Every token of the user is gone (the account was deleted): forgotten by every process, deleted from the store when it keeps them apart. */
  async revokeAll(userId: number): Promise<void> {
    await this.store.revokeAll(userId);
    broadcastNamed(TOKEN_REVOCATIONS_ROOM, JSON.stringify({ u: userId }), undefined);
  }

  /** @internal A revocation, from this process or another: the token (or the user's every token) is forgotten here. */
  deliverHere(text: string): void {
    let said: unknown;
    try {
      said = JSON.parse(text);
    } catch {
      return;
    }
    const { s, u } = (typeof said === "object" && said !== null ? said : {}) as Record<string, unknown>;
    if (typeof s === "string") this.#remembered.delete(s);
    if (typeof u === "number") for (const [selector, held] of this.#remembered) if (held.record.userId === u) this.#remembered.delete(selector);
  }

  /** The tokens' store (the account page lists, creates and revokes through it). */
  get tokens(): ApiTokenStore {
    return this.store;
  }

  /** A guard admitting API calls whose token carries `scope`. */
  guard<T extends string>(scope: T): TokenGuard<T, S> {
    if (!Object.hasOwn(this.scopes, scope)) {
      throw new Error(`auth.token: the scope ${JSON.stringify(scope)} is not one of the app's (${this.names().map((n) => JSON.stringify(n)).join(", ") || "none: give formSignIn scopes"}).`);
    }
    return new TokenGuard<T, S>(scope, this.names() as S[], this);
  }

  /**
   * Makes a token for user `userId` from code (a seed, a test, a command), as the account page
   * does, and answers its text: the only time it is seen. Throws on a scope that is not the
   * app's, a lifetime that is not a positive number of days up to a year, or a full account.
   */
  async issue(userId: number, options: { readonly name: string; readonly scopes: readonly S[]; readonly days: number }): Promise<string> {
    const unknown = options.scopes.filter((scope) => !Object.hasOwn(this.scopes, scope));
    if (options.scopes.length === 0 || unknown.length > 0) throw new Error(`apiTokens.issue: give one of the app's scopes at least (${this.names().join(", ")}); ${unknown.map((s) => JSON.stringify(s)).join(", ") || "none was given"}.`);
    if (!Number.isFinite(options.days) || options.days <= 0 || options.days > 366) throw new Error(`apiTokens.issue: days ${options.days} must be a positive number of days, a year at most.`);
    const now = this.now();
    const { token, record } = freshApiToken({ userId, name: options.name, scopes: [...new Set(options.scopes)], createdAt: now, expiresAt: now + options.days * 24 * 60 * 60_000 });
    if (!(await this.store.create(record, MAX_TOKENS_PER_USER))) throw new Error(`apiTokens.issue: user ${userId} holds ${MAX_TOKENS_PER_USER} tokens already.`);
    return token;
  }

  /** The names of the app's scopes, in their order. */
  names(): readonly S[] {
    return Object.keys(this.scopes) as S[];
  }

  /** The token's record when this process read it lately and no revocation came since (never with other processes); else undefined. */
  private remembered(selector: string, now: number): ApiTokenRecord | undefined {
    const held = servesWithOtherProcesses() ? undefined : this.#remembered.get(selector);
    return held === undefined || now - held.readAt >= TOKEN_RECHECK_MS || now < held.readAt ? undefined : held.record;
  }

  /** The token's record read from the store (or undefined); remembered when the token was presented whole. */
  private async read(selector: string, verifierHash: string, now: number): Promise<ApiTokenRecord | undefined> {
    const record = await this.store.use(selector, verifierHash, now, now - LAST_USE_RESOLUTION_MS);
    this.#remembered.delete(selector);
    // Only a token presented whole is remembered: a wrong verifier never fills the memory.
    if (record !== undefined && sameSecret(record.verifierHash, verifierHash)) {
      this.#remembered.set(selector, { record, readAt: now });
      if (this.#remembered.size > MAX_REMEMBERED_TOKENS) this.#remembered.delete(this.#remembered.keys().next().value as string);
    }
    return record;
  }

  /** @internal Who a call acts for, once its guard let it through. */
  callerOf(headers: RequestHeaders): string | undefined {
    return this.#callers.get(headers);
  }

  /**
   * @internal The user a call's token acts for, or the 403 saying what was wrong: no header, not
   * a bearer token, no such token (revoked, copied wrong), expired, or without `scope`. The
   * verifier's hash is compared in constant time with the stored one: read now (one statement),
   * or, in a process serving alone, as it read it within `TOKEN_RECHECK_MS` (no statement).
   */
  admit(headers: RequestHeaders, scope: string): string | Promise<string> {
    const header = headers.get("authorization");
    if (header === undefined) throw new Forbidden(`This API needs a token with the scope "${scope}": send the header Authorization: Bearer <token> (create one at ${this.accountPath}).`);
    const text = /^Bearer +(\S+) *$/i.exec(header)?.[1];
    if (text === undefined) throw new Forbidden("The Authorization header is not a bearer token: send Authorization: Bearer <token>.");
    const parts = tokenParts(text);
    if (parts === undefined) throw new Forbidden("The token is not valid: it was revoked, or copied wrong.");
    const now = this.now();
    const held = this.remembered(parts.selector, now);
    // A remembered token is answered at once: no promise on the way (what keeps it as cheap as apiKey).
    if (held !== undefined) return this.checked(headers, scope, parts.verifierHash, held, now);
    return this.read(parts.selector, parts.verifierHash, now).then((record) => this.checked(headers, scope, parts.verifierHash, record, now));
  }

  /** The caller of a token read from the store or memory, or the 403 saying why not. */
  private checked(headers: RequestHeaders, scope: string, verifierHash: string, record: ApiTokenRecord | undefined, now: number): string {
    const matches = sameSecret(verifierHash, record?.verifierHash ?? this.#nothing);
    if (record === undefined || !matches) throw new Forbidden("The token is not valid: it was revoked, or copied wrong.");
    // Said only to whoever holds the whole token: they learn nothing they could not see at /account.
    if (record.expiresAt <= now) throw new Forbidden(`The token "${record.name}" expired on ${new Date(record.expiresAt).toISOString().slice(0, 10)}: create a new one at ${this.accountPath}.`);
    if (!record.scopes.includes(scope)) throw new Forbidden(`The token "${record.name}" does not have the scope "${scope}" this route needs: create one that has it at ${this.accountPath}.`);
    const user = String(record.userId);
    this.#callers.set(headers, user);
    return user;
  }
}

/**
 * The guard of an API route that a per-user token with one scope may call
 * (`export const guarded = auth.token({ scope: "posts:write" })`). The call names itself with
 * `Authorization: Bearer <token>`; no cookie is read, so a token never works on a browser route
 * and a cookie never works here. Every call asks the store (one statement), so a revoked token
 * stops working at once in every process. `S` is the route's scope, `A` the app's: the build
 * checks that `S` is one of `A` (TS91090) and that the route is an API route (TS91091).
 */
export class TokenGuard<S extends string = string, A extends string = string> extends Guarded {
  constructor(
    /** The scope a call's token must carry. */
    readonly scope: S,
    /** The app's scopes, for the build's check. */
    readonly appScopes: readonly A[],
    private readonly tokens: ApiTokens<A>,
  ) {
    super({ through: (route) => wrap(tokens, scope, route), identify: (request) => request });
  }

  /** The key of the user the call's token acts for (once the guard let it through), or undefined. */
  callerOf(request: { readonly headers: RequestHeaders }): string | undefined {
    return this.tokens.callerOf(request.headers);
  }
}

function wrap(tokens: ApiTokens, scope: string, route: Route): Route {
  const guard = `${TOKEN_GUARD}:${scope}`;
  // A socket's handshake is a browser's (its cookie, no Authorization header it could set): refused.
  if (route.case === "ws") return { ...route, guard, requiresUser: true };
  if (route.kind !== API) return { ...route, guard, handler: refuseBrowser };
  const handler = route.handler;
  const checked: HttpRoute["handler"] = (request) => {
    const user = tokens.admit(request.headers, scope);
    return typeof user === "string" ? handler(withCurrentUser(request, user)) : user.then((named) => handler(withCurrentUser(request, named)));
  };
  return { ...route, guard, handler: checked };
}

function refuseBrowser(): never {
  throw new Forbidden("This page is guarded by an API token, and a token never works on a browser page: guard it with auth.guarded(), or make its handler take ApiRequest.");
}
