import { randomBytes } from "node:crypto";
import type { AttemptLimiter, Limit } from "../auth/rate-limit.js";
import type { UserFields, Users, UsersQuery } from "../auth/users.js";
import { canonicalRoles } from "../http/roles.js";
import type { Database, Queryable, Row } from "./database.js";
import { joinedConnection, joins, type Joined } from "./joined.js";
import { checkIdentifier, quoteIdentifier as q } from "./identifier.js";
import type { AccountTokens } from "../auth/account-tokens.js";
import { SqlAccountTokens } from "./sql-account-tokens.js";
import type { ApiTokenStore } from "../auth/api-token-store.js";
import { SqlApiTokens } from "./sql-api-tokens.js";
import type { SecondFactorStore } from "../auth/second-factor-store.js";
import { SqlSecondFactors } from "./sql-second-factors.js";
import type { IdentityStore } from "../auth/identity-store.js";
import { SqlIdentities } from "./sql-identities.js";
import type { PasskeyStore } from "../auth/passkey-store.js";
import { SqlPasskeys } from "./sql-passkeys.js";
import { SqlAttemptLimiter } from "./sql-attempt-limiter.js";
import { SqlAccountData } from "./sql-account-data.js";
import { fileKeeper } from "./stored-files.js";
import { deleteTeams, membershipsOf, membershipsSelected, SqlTeams, teamsGoingWith } from "./sql-teams.js";
import { VERSION_COLUMN } from "./table.js";

/** The users table's default name (what an owned model's owner column references). */
export const USERS_TABLE = "users";

/**
 * Signed-out sessions kept per user. Past it, `revokeSession` ends all the user's sessions
 * (a fresh epoch) and forgets the list, as fw/auth's contract allows: rows grow with users,
 * not with sign-outs.
 */
export const MAX_REVOKED_SESSIONS = 256;

/**
 * The DDL of the users table `SqlUsers` reads and writes, and of its revoked-sessions table
 * (`<table>_revoked_sessions`): what `db new` writes into a migration.
 * - `id` is an identity: assigned by the database, never reused (a deleted user's key is not
 *   given to the next sign-up, so an old session cookie or an owner column cannot point at them);
 * - `email` is UNIQUE: it holds the normalised email (fw/auth's `normalEmail`), so two spellings
 *   of one address are one account, and two concurrent sign-ups cannot both win;
 * - revoked sessions carry their expiry (`until_ms`, when the cookie would end anyway) and go
 *   with their user (ON DELETE CASCADE).
 */
export function usersTableSql(table: string = USERS_TABLE): string {
  checkIdentifier(table, "users table name");
  const revoked = revokedTable(table);
  return (
    `CREATE TABLE ${q(table)} (\n` +
    `  "id" bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,\n` +
    `  "email" text NOT NULL UNIQUE,\n` +
    `  "password_hash" text NOT NULL,\n` +
    `  "session_epoch" text NOT NULL,\n` +
    `  ${q(VERSION_COLUMN)} integer NOT NULL DEFAULT 1\n` +
    `);\n` +
    `CREATE TABLE ${q(revoked)} (\n` +
    `  "user_id" bigint NOT NULL REFERENCES ${q(table)} ("id") ON DELETE CASCADE,\n` +
    `  "session_id" text NOT NULL,\n` +
    `  "until_ms" bigint NOT NULL,\n` +
    `  PRIMARY KEY ("user_id", "session_id")\n` +
    `);\n`
  );
}

function revokedTable(table: string): string {
  const name = `${table}_revoked_sessions`;
  checkIdentifier(name, "revoked-sessions table name (the users table's name + _revoked_sessions)");
  return name;
}

export interface SqlUsersOptions {
  /** The users table (default `users`), as created by `usersTableSql(table)`. */
  readonly table?: string;
  /** The clock revocations are compared with (tests). Default `Date.now`. */
  readonly now?: () => number;
}

/**
 * fw/auth's `Users` on a database table: sign-up, sign-in and session revocation shared by
 * every app process on the database. Emails arrive in `normalEmail` form (fw/auth's contract)
 * and are stored as they arrive. `U` is the app's user type; as with `InMemoryUsers`, its
 * fields beyond `UserFields` must be optional (the table keeps only these four).
 */
export class SqlUsers<U extends UserFields = UserFields> implements Users<U> {
  private readonly users: string;
  private readonly revoked: string;
  private readonly now: () => number;
  #tokens: AccountTokens | undefined;
  #data: SqlAccountData | undefined;
  /** The roles table (`fw_<table>_roles`), made on first use as fw's other tables are. */
  private readonly roles: string;
  /** The locked accounts (`fw_<table>_locks`, issue 41), made on first use with the roles table. */
  private readonly locks: string;
  #apiTokens: ApiTokenStore | undefined;
  #secondFactors: SecondFactorStore | undefined;
  #identities: IdentityStore | undefined;
  #passkeys: PasskeyStore | undefined;
  /** The users table's name, unquoted. */
  private readonly table: string;
  /** What every read answers: the user's columns and, in the same statement, their roles, whether they are locked (and, once teams are on, their memberships). */
  private selected: string;
  /** The teams beside these users, once asked for (`teams()`). */
  #teams: SqlTeams | undefined;

  constructor(
    private readonly db: Database,
    private readonly options: SqlUsersOptions = {},
  ) {
    const table = options.table ?? USERS_TABLE;
    this.table = table;
    this.users = q(table);
    this.revoked = q(revokedTable(table));
    this.roles = q(rolesTable(table));
    this.locks = q(locksTable(table));
    this.selected =
      `"id", "email", "password_hash", "session_epoch", ARRAY(SELECT r."role" FROM ${this.roles} r WHERE r."user_id" = ${this.users}."id" ORDER BY r."role") AS "roles", ` +
      `EXISTS (SELECT 1 FROM ${this.locks} l WHERE l."user_id" = ${this.users}."id") AS "locked"`;
    this.now = options.now ?? Date.now;
  }

  /**
   * The same users, every statement sent through `joined`'s transaction (fw/admin writes an
   * account's change and its audit record in one), undefined for another database's. The
   * transaction first takes a lock every such write of this table takes, so two admins' changes
   * of roles and locks happen one after the other: "is another admin left?" is answered right.
   */
  async within(joined: Joined): Promise<SqlUsers<U> | undefined> {
    if (!joins(joined, this.db)) return undefined;
    await this.ready();
    await joined.tx.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`fw ${this.roles}`]);
    const view = { ...joinedConnection(joined.tx), engine: this.db.engine, description: this.db.description, withConnection: this.db.withConnection.bind(this.db), close: this.db.close.bind(this.db) };
    madeRoles.set(view, Promise.resolve());
    return new SqlUsers<U>(view, this.options);
  }

  /** Locks or unlocks the account in one transaction; locking gives a fresh session epoch in it (every session ends). */
  async setLocked(id: number, locked: boolean): Promise<U | undefined> {
    if (!isKey(id)) return undefined;
    await this.ready();
    return this.db.transaction(async (tx) => {
      const user = await tx.query(`SELECT "id" FROM ${this.users} WHERE "id" = $1 FOR UPDATE`, [id]);
      if (user.rows[0] === undefined) return undefined;
      if (!locked) {
        await tx.query(`DELETE FROM ${this.locks} WHERE "user_id" = $1`, [id]);
        return this.one(await tx.query(`SELECT ${this.selected} FROM ${this.users} WHERE "id" = $1`, [id]));
      }
      await tx.query(`INSERT INTO ${this.locks} ("user_id") VALUES ($1) ON CONFLICT ("user_id") DO NOTHING`, [id]);
      return this.one(await revokeAll(tx, this.users, id, this.selected));
    });
  }

  /** The users a query matches, in key order, and how many in all: one statement. */
  async list(query: UsersQuery): Promise<{ readonly rows: readonly U[]; readonly total: number }> {
    const params: unknown[] = [Math.max(0, Math.trunc(query.limit)), Math.max(0, Math.trunc(query.offset))];
    const where: string[] = [];
    if (query.search !== undefined) {
      if (query.search.includes("\u0000")) return { rows: [], total: 0 };
      params.push(query.search);
      where.push(`strpos("email", $${params.length}) > 0`);
    }
    if (query.role !== undefined) {
      params.push(query.role);
      where.push(`EXISTS (SELECT 1 FROM ${this.roles} r WHERE r."user_id" = ${this.users}."id" AND r."role" = $${params.length})`);
    }
    if (query.unlocked === true) where.push(`NOT EXISTS (SELECT 1 FROM ${this.locks} l WHERE l."user_id" = ${this.users}."id")`);
    if (query.ids !== undefined) {
      params.push(`{${query.ids.filter(isKey).join(",")}}`);
      where.push(`"id" = ANY($${params.length}::bigint[])`);
    }
    const clause = where.length === 0 ? "" : ` WHERE ${where.join(" AND ")}`;
    const { rows } = await this.query(`SELECT ${this.selected}, count(*) OVER () AS fw_total FROM ${this.users}${clause} ORDER BY "id" LIMIT $1 OFFSET $2`, params);
    if (rows[0] !== undefined) return { rows: rows.map((row) => this.one({ rows: [row] }) as U), total: Number(rows[0]["fw_total"]) };
    const counted = await this.query(`SELECT count(*) AS n FROM ${this.users}${clause.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) - 2}`)}`, params.slice(2));
    return { rows: [], total: Number(counted.rows[0]?.["n"] ?? 0) };
  }

  /** The user's roles, replaced in one transaction; undefined when there is no such user. */
  async setRoles(id: number, roles: readonly string[]): Promise<U | undefined> {
    if (!isKey(id)) return undefined;
    const wanted = canonicalRoles(roles);
    await this.ready();
    return this.db.transaction(async (tx) => {
      const user = await tx.query(`SELECT "id" FROM ${this.users} WHERE "id" = $1 FOR UPDATE`, [id]);
      if (user.rows[0] === undefined) return undefined;
      await tx.query(`DELETE FROM ${this.roles} WHERE "user_id" = $1`, [id]);
      if (wanted.length > 0) await tx.query(`INSERT INTO ${this.roles} ("user_id", "role") SELECT $1, unnest($2::text[])`, [id, wanted]);
      return this.one(await tx.query(`SELECT ${this.selected} FROM ${this.users} WHERE "id" = $1`, [id]));
    });
  }

  /**
   * Teams (issue 41) beside these users: `fw_teams`, `fw_team_members` and
   * `fw_team_invitations`, made on first use. From the first call on, every read of a user
   * answers their memberships too, in the same statement.
   */
  teams(): SqlTeams {
    if (this.#teams === undefined) {
      this.#teams = new SqlTeams(this.db, this.users);
      this.selected = `${this.selected}, ${membershipsSelected(this.users)}`;
    }
    return this.#teams;
  }

  /** Makes the roles and locks tables once per process (again after a `db reset` dropped them), and the team tables once teams are on. */
  private async ready(): Promise<void> {
    await this.rolesReady();
    await this.#teams?.ready();
  }

  private rolesReady(): Promise<void> {
    let making = madeRoles.get(this.db);
    if (making === undefined) {
      making = this.db.script(rolesTableSql(this.users, this.roles, this.locks)).catch((error: unknown) => {
        const code = (error as { code?: unknown }).code;
        if (code === "23505" || code === "42P07" || code === "42710") return; // two processes making it at once
        madeRoles.delete(this.db);
        throw error;
      });
      madeRoles.set(this.db, making);
    }
    return making;
  }

  /** A read, once the roles table exists; made again when a `db reset` dropped it. */
  private async query(sql: string, params: readonly unknown[]): Promise<{ rows: Row[]; rowCount: number }> {
    await this.ready();
    try {
      return await this.db.query(sql, params);
    } catch (error) {
      if ((error as { code?: unknown }).code !== "42P01") throw error;
      madeRoles.delete(this.db);
      this.#teams?.forget();
      await this.ready();
      return this.db.query(sql, params);
    }
  }

  /**
   * fw/auth's sign-in and sign-up limits count in the database too (`fw_attempts`), so every
   * process on it counts together; `formSignIn` asks for them unless given `limiters`.
   */
  attemptLimiter(scope: string, limit: Limit): AttemptLimiter {
    return new SqlAttemptLimiter(this.db, scope, limit, this.now);
  }

  /** fw/auth's emailed tokens (reset, confirm, change of email) in the database (`fw_auth_tokens`), shared by every process. */
  tokens(): AccountTokens {
    this.#tokens ??= new SqlAccountTokens(this.db);
    return this.#tokens;
  }

  /**
   * fw/auth's per-user API tokens in the database (`fw_api_tokens`, its rows going with their
   * user): every process reads the table on every call, so a revoked token stops everywhere at once.
   */
  apiTokens(): ApiTokenStore {
    this.#apiTokens ??= new SqlApiTokens(this.db, this.table);
    return this.#apiTokens;
  }

  /** fw/auth's second factors (TOTP) in the database (`fw_second_factors`, its rows going with their user): a code used in one process is refused by all. */
  secondFactors(): SecondFactorStore {
    this.#secondFactors ??= new SqlSecondFactors(this.db, this.table);
    return this.#secondFactors;
  }

  /** fw/auth's linked provider accounts (OpenID Connect, GitHub) in the database (`fw_identities`, its rows going with their user). */
  identities(): IdentityStore {
    this.#identities ??= new SqlIdentities(this.db, this.table);
    return this.#identities;
  }

  /** fw/auth's passkeys in the database (`fw_passkeys`, its rows going with their user), read on every passkey sign-in. */
  passkeys(): PasskeyStore {
    this.#passkeys ??= new SqlPasskeys(this.db, this.table);
    return this.#passkeys;
  }

  /** The new email in one statement; "taken" when the unique index refuses it (another account has it). */
  async setEmail(id: number, email: string): Promise<U | "taken" | undefined> {
    if (!isKey(id)) return undefined;
    try {
      return this.one(await this.query(`UPDATE ${this.users} SET "email" = $2, ${q(VERSION_COLUMN)} = ${q(VERSION_COLUMN)} + 1 WHERE "id" = $1 RETURNING ${this.selected}`, [id, email]));
    } catch (error) {
      if ((error as { code?: unknown }).code === "23505") return "taken";
      throw error;
    }
  }

  async byEmail(email: string): Promise<U | undefined> {
    return this.one(await this.query(`SELECT ${this.selected} FROM ${this.users} WHERE "email" = $1`, [email]));
  }

  async byId(id: number): Promise<U | undefined> {
    if (!isKey(id)) return undefined;
    return this.one(await this.query(`SELECT ${this.selected} FROM ${this.users} WHERE "id" = $1`, [id]));
  }

  /** One statement: of concurrent sign-ups with one email, the unique index lets exactly one in. */
  async create(email: string, passwordHash: string): Promise<U | undefined> {
    return this.one(
      await this.query(
        `INSERT INTO ${this.users} ("email", "password_hash", "session_epoch") VALUES ($1, $2, $3) ON CONFLICT ("email") DO NOTHING RETURNING ${this.selected}`,
        [email, passwordHash, freshEpoch()],
      ),
    );
  }

  async setPasswordHash(id: number, passwordHash: string): Promise<U | undefined> {
    if (!isKey(id)) return undefined;
    return this.one(
      await this.query(
        `UPDATE ${this.users} SET "password_hash" = $2, "session_epoch" = $3, ${q(VERSION_COLUMN)} = ${q(VERSION_COLUMN)} + 1 WHERE "id" = $1 RETURNING ${this.selected}`,
        [id, passwordHash, freshEpoch()],
      ),
    );
  }

  async revokeAll(id: number): Promise<U | undefined> {
    if (!isKey(id)) return undefined;
    await this.ready();
    return this.one(await revokeAll(this.db, this.users, id, this.selected));
  }

  /**
   * fw/auth's account data on this database (issue 41): which of the app's model rows keep a user
   * from being deleted, and "Download my data" (`fw_<table>_exports`, made by fw/jobs).
   */
  accountData(): SqlAccountData {
    this.#data ??= new SqlAccountData(this.db, this.table);
    return this.#data;
  }

  /**
   * Deletes the user in one transaction, with everything that goes with them: their revoked
   * sessions, roles, exports, API tokens, second factor, passkeys, linked sign-in providers and
   * team memberships, the teams they are the only member of (with those teams' rows; a team
   * they are the last owner of while it has other members refuses it all: `LastOwnerError`),
   * and the app's rows whose user column says "cascade" (and what
   * cascades from those) are deleted by the database's foreign keys, "set null" rows are kept
   * without them, and a "restrict" row refuses it all (the foreign key's error is thrown, nothing
   * changed). The stored files of the rows that go (and of the user's export archives) are given
   * to fw/files' delete job in the same transaction: they go at once once it commits, and stay
   * when it rolls back. The identity never gives the key out again.
   */
  async delete(id: number): Promise<boolean> {
    if (!isKey(id)) return false;
    const data = this.accountData();
    const keeper = fileKeeper();
    await data.records.ready();
    await keeper?.prepare(this.db);
    return this.db.transaction(async (tx) => {
      const user = await tx.query(`SELECT "id" FROM ${this.users} WHERE "id" = $1 FOR UPDATE`, [id]);
      if (user.rows[0] === undefined) return false;
      const teams = await teamsGoingWith(tx, id);
      const keys = [...(await data.rows.filesGoingWith(tx, id, teams)), ...(await data.records.archivesOf(tx, id))];
      // The user first: a "restrict" row of theirs refuses it all before a team of theirs goes.
      await tx.query(`DELETE FROM ${this.users} WHERE "id" = $1`, [id]);
      await deleteTeams(tx, teams);
      if (keys.length > 0) await keeper?.release(tx, keys);
      return true;
    });
  }

  /**
   * In one transaction: drops the user's expired revocations, then records this one; when the
   * user already has `MAX_REVOKED_SESSIONS`, ends all their sessions instead. Nobody's (no such
   * user, or deleted meanwhile) is ignored.
   */
  async revokeSession(id: number, sessionId: string, until: number): Promise<void> {
    if (!isKey(id)) return;
    const now = this.now();
    await this.ready();
    await this.db.transaction(async (tx) => {
      // Locks the user's row: concurrent sign-outs of one user count one after the other.
      const user = await tx.query(`SELECT "id" FROM ${this.users} WHERE "id" = $1 FOR UPDATE`, [id]);
      if (user.rows[0] === undefined) return;
      await tx.query(`DELETE FROM ${this.revoked} WHERE "user_id" = $1 AND "until_ms" <= $2`, [id, now]);
      const held = await tx.query(`SELECT count(*) AS n FROM ${this.revoked} WHERE "user_id" = $1`, [id]);
      if (Number(held.rows[0]?.["n"] ?? 0) >= MAX_REVOKED_SESSIONS) {
        await tx.query(`DELETE FROM ${this.revoked} WHERE "user_id" = $1`, [id]);
        await revokeAll(tx, this.users, id, this.selected);
        return;
      }
      await tx.query(
        `INSERT INTO ${this.revoked} ("user_id", "session_id", "until_ms") VALUES ($1, $2, $3) ` +
          `ON CONFLICT ("user_id", "session_id") DO UPDATE SET "until_ms" = GREATEST(${this.revoked}."until_ms", EXCLUDED."until_ms")`,
        [id, sessionId, Math.trunc(until)],
      );
    });
  }

  async isRevoked(id: number, sessionId: string): Promise<boolean> {
    if (!isKey(id)) return false;
    const { rows } = await this.db.query(`SELECT 1 AS revoked FROM ${this.revoked} WHERE "user_id" = $1 AND "session_id" = $2 AND "until_ms" > $3`, [id, sessionId, this.now()]);
    return rows.length > 0;
  }

  /** The user, unless this session of theirs was signed out (and is still remembered): one statement. */
  async byIdUnlessRevoked(id: number, sessionId: string): Promise<U | undefined> {
    if (!isKey(id)) return undefined;
    return this.one(
      await this.query(
        `SELECT ${this.selected} FROM ${this.users} WHERE "id" = $1 ` +
          `AND NOT EXISTS (SELECT 1 FROM ${this.revoked} WHERE "user_id" = $1 AND "session_id" = $2 AND "until_ms" > $3)`,
        [id, sessionId, this.now()],
      ),
    );
  }

  private one(result: { readonly rows: Row[] }): U | undefined {
    const row = result.rows[0];
    if (row === undefined) return undefined;
    // The cast is what the class comment asks of U: only these fields are required.
    const roles = Array.isArray(row["roles"]) ? (row["roles"] as unknown[]).map(String) : [];
    const user = { id: Number(row["id"]), email: String(row["email"]), passwordHash: String(row["password_hash"]), sessionEpoch: String(row["session_epoch"]), roles };
    // `locked` only on a locked account, as InMemoryUsers has it.
    const read = row["locked"] === true ? { ...user, locked: true } : user;
    return (this.#teams === undefined ? read : { ...read, teams: membershipsOf(row) }) as unknown as U;
  }
}

function revokeAll(db: Queryable, users: string, id: number, selected: string): Promise<{ rows: Row[] }> {
  return db.query(`UPDATE ${users} SET "session_epoch" = $2, ${q(VERSION_COLUMN)} = ${q(VERSION_COLUMN)} + 1 WHERE "id" = $1 RETURNING ${selected}`, [id, freshEpoch()]);
}

/** Each database's roles table is made once per process. */
const madeRoles = new WeakMap<Queryable, Promise<void>>();

/** `fw_users_roles` for the table `users`: fw's own (the `fw_` prefix), made on first use, out of the app's migrations. */
function rolesTable(table: string): string {
  const name = `fw_${table}_roles`;
  checkIdentifier(name, "roles table name (fw_ + the users table's name + _roles)");
  return name;
}

/** `fw_users_locks` for the table `users`: the locked accounts (issue 41), fw's own, made with the roles table. */
function locksTable(table: string): string {
  const name = `fw_${table}_locks`;
  checkIdentifier(name, "locks table name (fw_ + the users table's name + _locks)");
  return name;
}

/** A user's roles, one row each, and the locked accounts, one row each (since when): gone with the user. */
function rolesTableSql(users: string, roles: string, locks: string): string {
  return (
    `CREATE TABLE IF NOT EXISTS ${roles} (\n` +
    `  "user_id" bigint NOT NULL REFERENCES ${users} ("id") ON DELETE CASCADE,\n` +
    `  "role" text NOT NULL,\n` +
    `  PRIMARY KEY ("user_id", "role")\n` +
    `);\n` +
    `CREATE TABLE IF NOT EXISTS ${locks} (\n` +
    `  "user_id" bigint PRIMARY KEY REFERENCES ${users} ("id") ON DELETE CASCADE,\n` +
    `  "locked_at" timestamptz NOT NULL DEFAULT now()\n` +
    `);\n`
  );
}

/** A fresh random session epoch (128 bits), as fw/auth's `InMemoryUsers` makes them. */
function freshEpoch(): string {
  return randomBytes(16).toString("base64url");
}

/** User keys are positive whole numbers: anything else names nobody and is not sent. */
function isKey(id: unknown): id is number {
  return typeof id === "number" && Number.isSafeInteger(id) && id > 0;
}
