import { randomBytes } from "node:crypto";
import { ownCopy } from "../http/own-copy.js";
import { normalEmail } from "../http/email-address.js";
import { canonicalRoles } from "../http/roles.js";

export { normalEmail } from "../http/email-address.js";
export { canonicalRoles, ROLE_PATTERN } from "../http/roles.js";
import { hashPassword } from "./password.js";
import { InMemoryTokens, type AccountTokens } from "./account-tokens.js";
import { InMemoryApiTokens, type ApiTokenStore } from "./api-token-store.js";
import { InMemorySecondFactors, type SecondFactorStore } from "./second-factor-store.js";
import { InMemoryIdentities, type IdentityStore } from "./identity-store.js";
import { InMemoryPasskeys, type PasskeyStore } from "./passkey-store.js";
import type { AttemptLimiter, Limit } from "./rate-limit.js";
import type { Membership, TeamStore } from "./teams.js";

/**
 * What the auth module reads of the app's user model: its key (`id: Id<User>`), its email, its
 * password hash (from `hashPassword`, never the password) and its session epoch. The app's
 * model may have more.
 */
export interface UserFields {
  readonly id: number;
  readonly email: string;
  readonly passwordHash: string;
  /**
   * An opaque random string every signed-in session copies at sign-in and the guard compares on
   * every guarded request. The store sets a fresh one when it creates the user and whenever it
   * ends all their sessions (`revokeAll`, `setPasswordHash`): every older cookie stops counting.
   * Random, never a counter, so a store that starts over (users in memory, a restored backup)
   * cannot give a new user an epoch an old cookie carries.
   */
  readonly sessionEpoch: string;
  /**
   * The roles the user holds (`admin`, the app's own): what `auth.role(…)` guards ask for, read
   * from the store with the user on every request, so a role granted or revoked counts at once in
   * every process. None when absent. Granted and revoked through `auth.setRoles` (or `db grant`).
   */
  readonly roles?: readonly string[];
  /**
   * The teams the user is a member of, with their role in each (issue 41): read with the user on
   * every request, as roles are, by a store that keeps teams (`teams()`), so a removed member
   * loses access at once in every process. None when absent.
   */
  readonly teams?: readonly Membership[];
}

/**
 * The users the form sign-in checks and sign-up adds to, supplied by the app: `InMemoryUsers`,
 * or a database table. Every method is async and keeps its state in the store itself (nothing
 * in process memory the next process would not see), so many processes can share one store.
 * Emails are passed in their `normalEmail` form; keys are never reused once given out.
 * `spec/auth/users-conformance.ts` is the suite an implementation must pass.
 */
export interface Users<U extends UserFields = UserFields> {
  /** The user with this email (`normalEmail` form), or undefined. */
  byEmail(email: string): Promise<U | undefined>;
  /** The user with this key, or undefined (never created, or deleted). */
  byId(id: number): Promise<U | undefined>;
  /** A new user with a fresh key and a fresh session epoch; undefined when the email is taken. */
  create(email: string, passwordHash: string): Promise<U | undefined>;
  /** Replaces the password hash and, in the same write, the session epoch; undefined when no such user. */
  setPasswordHash(id: number, passwordHash: string): Promise<U | undefined>;
  /** A fresh session epoch (every session of the user ends); undefined when no such user. */
  revokeAll(id: number): Promise<U | undefined>;
  /** Deletes the user (and their revoked sessions); false when there was none. Their key is not given out again. */
  delete(id: number): Promise<boolean>;
  /**
   * Remembers that one session of the user (its random id, `sessionId`) was signed out, until
   * `until` (ms since the epoch, when that session's cookie expires anyway). A store may bound
   * what it keeps per user by ending all the user's sessions (a fresh epoch) instead.
   */
  revokeSession(id: number, sessionId: string, until: number): Promise<void>;
  /** Whether `revokeSession` was called for this session and its `until` has not passed. */
  isRevoked(id: number, sessionId: string): Promise<boolean>;
  /**
   * Optional: `byId(id)` unless `isRevoked(id, sessionId)`, in one read (fw/db's `SqlUsers`: one
   * statement). What the guard asks on every request; without it, it asks both.
   */
  byIdUnlessRevoked?(id: number, sessionId: string): Promise<U | undefined>;
  /**
   * Optional: a limiter whose counts this store keeps beside the users (a database table), so
   * every process sharing the store counts together. `formSignIn` uses it for its sign-in and
   * sign-up limits, one per `scope`, unless given `limiters`; without it, they count in memory.
   */
  attemptLimiter?(scope: string, limit: Limit): AttemptLimiter;
  /**
   * Optional: where the account flows' emailed tokens wait (fw/db's `SqlUsers`: the
   * `fw_auth_tokens` table, shared by every process). Without it, `formSignIn` keeps them in memory.
   */
  tokens?(): AccountTokens;
  /**
   * Optional: where per-user API tokens are kept (fw/db's `SqlUsers`: the `fw_api_tokens` table,
   * read by every process on every call). Without it, `formSignIn` keeps them in memory.
   */
  apiTokens?(): ApiTokenStore;
  /** Optional: where second factors (TOTP) are kept (fw/db's `SqlUsers`: `fw_second_factors`). Without it, `formSignIn` keeps them in memory. */
  secondFactors?(): SecondFactorStore;
  /** Optional: where accounts at sign-in providers are linked (fw/db's `SqlUsers`: `fw_identities`). Without it, `formSignIn` keeps them in memory. */
  identities?(): IdentityStore;
  /** Optional: where passkeys are kept (fw/db's `SqlUsers`: `fw_passkeys`). Without it, `formSignIn` keeps them in memory. */
  passkeys?(): PasskeyStore;
  /**
   * Optional: gives the user another email (`normalEmail` form), which the change-of-email flow
   * needs; "taken" when another account has it, undefined when there is no such user.
   */
  setEmail?(id: number, email: string): Promise<U | "taken" | undefined>;
  /**
   * Optional: the user's roles, replaced whole (sorted, each once); undefined when there is no
   * such user. What `auth.setRoles` and role guards need: without it, nobody holds a role.
   */
  setRoles?(id: number, roles: readonly string[]): Promise<U | undefined>;
  /**
   * Optional: the teams beside these users (issue 41). Asking for them turns them on: from then
   * on every read of a user answers their memberships (`teams`). `formSignIn({ teams: true })`
   * asks; without it a store keeps no team.
   */
  teams?(): TeamStore;
}

/** A fresh random session epoch (128 bits). */
export function freshEpoch(): string {
  return randomBytes(16).toString("base64url");
}

/** Signed-out sessions `InMemoryUsers` remembers per user; past it, all the user's sessions end instead. */
export const MAX_REVOKED_PER_USER = 32;

/**
 * Users kept in memory for the life of the process (tests, the example, a first app). Keys are
 * 1, 2, 3, … `U` is the app's user type; fields it has beyond `UserFields` must be optional,
 * since a sign-up knows only the email and the password. Revoked sessions are kept per user, at
 * most `MAX_REVOKED_PER_USER` of them (expired ones dropped first): memory grows with users, not
 * with sign-outs.
 */
export class InMemoryUsers<U extends UserFields = UserFields> implements Users<U> {
  private readonly byNormalEmail = new Map<string, U>();
  private readonly byKey = new Map<number, U>();
  /** Per user: revoked session id → until. */
  private readonly revoked = new Map<number, Map<string, number>>();
  private next = 1;
  readonly #tokens = new InMemoryTokens();
  readonly #apiTokens = new InMemoryApiTokens();
  readonly #secondFactors = new InMemorySecondFactors();
  readonly #identities = new InMemoryIdentities();
  readonly #passkeys = new InMemoryPasskeys();

  constructor(private readonly now: () => number = Date.now) {}

  tokens(): AccountTokens {
    return this.#tokens;
  }

  apiTokens(): ApiTokenStore {
    return this.#apiTokens;
  }

  secondFactors(): SecondFactorStore {
    return this.#secondFactors;
  }

  identities(): IdentityStore {
    return this.#identities;
  }

  passkeys(): PasskeyStore {
    return this.#passkeys;
  }

  async setEmail(id: number, email: string): Promise<U | "taken" | undefined> {
    const user = this.byKey.get(id);
    if (user === undefined) return undefined;
    const normal = normalEmail(email);
    const holder = this.byNormalEmail.get(normal);
    if (holder !== undefined && holder.id !== id) return "taken";
    this.byNormalEmail.delete(user.email);
    const changed = { ...user, email: ownCopy(normal) };
    this.store(changed);
    return copy(changed);
  }

  async byEmail(email: string): Promise<U | undefined> {
    return copy(this.byNormalEmail.get(normalEmail(email)));
  }

  async byId(id: number): Promise<U | undefined> {
    return copy(this.byKey.get(id));
  }

  async create(email: string, passwordHash: string): Promise<U | undefined> {
    const normal = normalEmail(email);
    if (this.byNormalEmail.has(normal)) return undefined;
    // The cast is what the class comment asks of U: only these fields are required.
    const user = { id: this.next++, email: ownCopy(normal), passwordHash: ownCopy(passwordHash), sessionEpoch: freshEpoch() } as U;
    this.store(user);
    return copy(user);
  }

  async setPasswordHash(id: number, passwordHash: string): Promise<U | undefined> {
    return this.change(id, { passwordHash, sessionEpoch: freshEpoch() });
  }

  async revokeAll(id: number): Promise<U | undefined> {
    return this.change(id, { sessionEpoch: freshEpoch() });
  }

  async delete(id: number): Promise<boolean> {
    const user = this.byKey.get(id);
    if (user === undefined) return false;
    this.byKey.delete(id);
    this.byNormalEmail.delete(user.email);
    this.revoked.delete(id);
    await this.#apiTokens.revokeAll(id);
    await this.#secondFactors.disable(id);
    this.#identities.forget(id);
    this.#passkeys.forget(id);
    return true;
  }

  async revokeSession(id: number, sessionId: string, until: number): Promise<void> {
    if (!this.byKey.has(id)) return;
    const now = this.now();
    const sessions = this.revoked.get(id) ?? new Map<string, number>();
    for (const [held, end] of sessions) if (end <= now) sessions.delete(held);
    if (sessions.size >= MAX_REVOKED_PER_USER) {
      // Bounded: rather than forget a revocation, end every session of the user.
      this.revoked.delete(id);
      await this.revokeAll(id);
      return;
    }
    // A copy: the id was read from a cookie, and is kept for days.
    sessions.set(ownCopy(sessionId), until);
    this.revoked.set(id, sessions);
  }

  async isRevoked(id: number, sessionId: string): Promise<boolean> {
    const until = this.revoked.get(id)?.get(sessionId);
    return until !== undefined && until > this.now();
  }

  async byIdUnlessRevoked(id: number, sessionId: string): Promise<U | undefined> {
    return (await this.isRevoked(id, sessionId)) ? undefined : this.byId(id);
  }

  async setRoles(id: number, roles: readonly string[]): Promise<U | undefined> {
    return this.change(id, { roles: canonicalRoles(roles).map(ownCopy) });
  }

  private change(id: number, fields: Partial<UserFields>): U | undefined {
    const user = this.byKey.get(id);
    if (user === undefined) return undefined;
    const changed = { ...user, ...fields };
    this.store(changed);
    return copy(changed);
  }

  private store(user: U): void {
    this.byKey.set(user.id, user);
    this.byNormalEmail.set(user.email, user);
  }
}

function copy<U>(user: U | undefined): U | undefined {
  if (user === undefined) return undefined;
  const roles = (user as UserFields).roles;
  return roles === undefined ? { ...user } : { ...user, roles: [...roles] };
}

/**
 * Adds a user from code (tests, a dev seed), hashing the password. Throws when the email is
 * taken, naming it.
 */
export async function seedUser<U extends UserFields>(users: Users<U>, email: string, password: string): Promise<U> {
  const user = await users.create(normalEmail(email), await hashPassword(password));
  if (user === undefined) throw new Error(`seedUser: a user with the email ${JSON.stringify(normalEmail(email))} exists already.`);
  return user;
}
