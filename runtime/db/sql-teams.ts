import type { Accepted, Invitation, Member, MemberChange, MemberRole, Team, TeamsQuery, TeamStore } from "../auth/teams.js";
import type { Database, Queryable, Row } from "./database.js";
import { quoteIdentifier as q } from "./identifier.js";
import { joinedConnection, joins, type Joined } from "./joined.js";

/**
 * The teams table, `fw_teams`: fw's own (the `fw_` prefix), one per database. A model whose rows
 * belong to a team (`team: Id<Team>`) references it, so `db new` writes it into the migration
 * that first needs it; `SqlUsers.teams()` makes it on first use otherwise. Either way the same
 * statement, so whichever comes first the other finds it made.
 */
export const TEAMS_TABLE = "fw_teams";
const MEMBERS = q("fw_team_members");
const INVITATIONS = q("fw_team_invitations");
const TEAMS = q(TEAMS_TABLE);

/** The longest team name kept. */
export const MAX_TEAM_NAME = 100;

/** `fw_teams`: a key never given out again (an old session's current team, or a row's, cannot name a new team), and a name. */
export function teamsTableSql(): string {
  return (
    `CREATE TABLE IF NOT EXISTS ${TEAMS} (\n` +
    `  "id" bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,\n` +
    `  "name" text NOT NULL CHECK (length("name") BETWEEN 1 AND ${MAX_TEAM_NAME}),\n` +
    `  "created_at" timestamptz NOT NULL DEFAULT now()\n` +
    `);\n`
  );
}

/**
 * Members and invitations, beside the users table `users` (quoted): a member goes with their
 * user or their team; an invitation with its team, its inviter's key cleared when they go.
 */
function memberTablesSql(users: string): string {
  return (
    teamsTableSql() +
    `CREATE TABLE IF NOT EXISTS ${MEMBERS} (\n` +
    `  "team_id" bigint NOT NULL REFERENCES ${TEAMS} ("id") ON DELETE CASCADE,\n` +
    `  "user_id" bigint NOT NULL REFERENCES ${users} ("id") ON DELETE CASCADE,\n` +
    `  "role" text NOT NULL CHECK ("role" IN ('owner', 'admin', 'member')),\n` +
    `  "joined_at" timestamptz NOT NULL DEFAULT now(),\n` +
    `  PRIMARY KEY ("team_id", "user_id")\n` +
    `);\n` +
    `CREATE INDEX IF NOT EXISTS "fw_team_members_user" ON ${MEMBERS} ("user_id");\n` +
    `CREATE TABLE IF NOT EXISTS ${INVITATIONS} (\n` +
    `  "id" bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,\n` +
    `  "team_id" bigint NOT NULL REFERENCES ${TEAMS} ("id") ON DELETE CASCADE,\n` +
    `  "email" text NOT NULL,\n` +
    `  "role" text NOT NULL CHECK ("role" IN ('owner', 'admin', 'member')),\n` +
    `  "token_hash" text NOT NULL UNIQUE,\n` +
    `  "invited_by" bigint REFERENCES ${users} ("id") ON DELETE SET NULL,\n` +
    `  "expires_ms" bigint NOT NULL,\n` +
    `  UNIQUE ("team_id", "email")\n` +
    `);\n`
  );
}

/**
 * What every read of a user answers besides their columns, once teams are on: their
 * memberships, `team:role` each, in the same statement (`users` is the quoted users table).
 */
export function membershipsSelected(users: string): string {
  return `ARRAY(SELECT m."team_id"::text || ':' || m."role" FROM ${MEMBERS} m WHERE m."user_id" = ${users}."id" ORDER BY m."team_id") AS "teams"`;
}

/** The memberships `membershipsSelected` read, as `Membership`s. */
export function membershipsOf(row: Row): { team: number; role: MemberRole }[] {
  const held = row["teams"];
  if (!Array.isArray(held)) return [];
  return held.map((text) => {
    const [team, role] = String(text).split(":");
    return { team: Number(team), role: role as MemberRole };
  });
}

/** Each database's team tables are made once per process. */
const made = new WeakMap<Queryable, Promise<void>>();

/**
 * Teams, their members and invitations in the database (fw/auth's `TeamStore`): what
 * `SqlUsers.teams()` answers. A change that could leave a team without an owner locks the team's
 * row first, so two owners demoting each other at once cannot both succeed.
 */
export class SqlTeams implements TeamStore {
  constructor(
    private readonly db: Database,
    /** The users table, quoted. */
    private readonly users: string,
  ) {}

  /** Makes the tables once per process (again after a `db reset` dropped them). */
  ready(): Promise<void> {
    let making = made.get(this.db);
    if (making === undefined) {
      making = this.db.script(memberTablesSql(this.users)).catch((error: unknown) => {
        const code = (error as { code?: unknown }).code;
        if (code === "23505" || code === "42P07" || code === "42710") return; // two processes making them at once
        made.delete(this.db);
        throw error;
      });
      made.set(this.db, making);
    }
    return making;
  }

  /**
   * The same teams, every statement sent through `joined`'s transaction (fw/admin writes a
   * member's change and its audit record in one), undefined for another database's.
   */
  async within(joined: Joined): Promise<SqlTeams | undefined> {
    if (!joins(joined, this.db)) return undefined;
    await this.ready();
    const view: Database = { ...joinedConnection(joined.tx), engine: this.db.engine, description: this.db.description, withConnection: this.db.withConnection.bind(this.db), close: this.db.close.bind(this.db) };
    made.set(view, Promise.resolve());
    return new SqlTeams(view, this.users);
  }

  /** Every team a query matches, by name (then key), with its member count and how many match: one statement. */
  async list(query: TeamsQuery): Promise<{ readonly rows: readonly (Team & { readonly members: number })[]; readonly total: number }> {
    await this.ready();
    const params: unknown[] = [Math.max(0, Math.trunc(query.limit)), Math.max(0, Math.trunc(query.offset))];
    let clause = "";
    if (query.search !== undefined && query.search !== "") {
      if (query.search.includes("\u0000")) return { rows: [], total: 0 };
      params.push(query.search.toLowerCase());
      clause = ` WHERE strpos(lower(t."name"), $3) > 0`;
    }
    const { rows } = await this.db.query(
      `SELECT t."id", t."name", (SELECT count(*) FROM ${MEMBERS} m WHERE m."team_id" = t."id") AS "members", count(*) OVER () AS "fw_total" ` +
        `FROM ${TEAMS} t${clause} ORDER BY t."name", t."id" LIMIT $1 OFFSET $2`,
      params,
    );
    if (rows[0] !== undefined) return { rows: rows.map((row) => ({ ...teamOf(row), members: Number(row["members"]) })), total: Number(rows[0]["fw_total"]) };
    const counted = await this.db.query(`SELECT count(*) AS "n" FROM ${TEAMS} t${clause.replace("$3", "$1")}`, params.slice(2));
    return { rows: [], total: Number(counted.rows[0]?.["n"] ?? 0) };
  }

  /** Forgets that the tables were made (a statement found one missing: a `db reset`). */
  forget(): void {
    made.delete(this.db);
  }

  async create(name: string, owner: number): Promise<Team> {
    await this.ready();
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query(`INSERT INTO ${TEAMS} ("name") VALUES ($1) RETURNING "id", "name"`, [name]);
      const team = teamOf(rows[0] as Row);
      await tx.query(`INSERT INTO ${MEMBERS} ("team_id", "user_id", "role") VALUES ($1, $2, 'owner')`, [team.id, owner]);
      return team;
    });
  }

  async get(team: number): Promise<Team | undefined> {
    if (!isKey(team)) return undefined;
    await this.ready();
    const { rows } = await this.db.query(`SELECT "id", "name" FROM ${TEAMS} WHERE "id" = $1`, [team]);
    return rows[0] === undefined ? undefined : teamOf(rows[0]);
  }

  async teamsOf(user: number): Promise<readonly (Team & { readonly role: MemberRole })[]> {
    if (!isKey(user)) return [];
    await this.ready();
    const { rows } = await this.db.query(`SELECT t."id", t."name", m."role" FROM ${MEMBERS} m JOIN ${TEAMS} t ON t."id" = m."team_id" WHERE m."user_id" = $1 ORDER BY t."name", t."id"`, [user]);
    return rows.map((row) => ({ ...teamOf(row), role: row["role"] as MemberRole }));
  }

  async members(team: number): Promise<readonly Member[]> {
    if (!isKey(team)) return [];
    await this.ready();
    const { rows } = await this.db.query(
      `SELECT m."user_id", u."email", m."role" FROM ${MEMBERS} m JOIN ${this.users} u ON u."id" = m."user_id" WHERE m."team_id" = $1 ` +
        `ORDER BY CASE m."role" WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 ELSE 2 END, u."email"`,
      [team],
    );
    return rows.map((row) => ({ user: Number(row["user_id"]), email: String(row["email"]), role: row["role"] as MemberRole }));
  }

  setRole(team: number, user: number, role: MemberRole): Promise<MemberChange> {
    return this.changeMember(team, user, role === "owner" ? undefined : role, (tx) => tx.query(`UPDATE ${MEMBERS} SET "role" = $3 WHERE "team_id" = $1 AND "user_id" = $2`, [team, user, role]));
  }

  remove(team: number, user: number): Promise<MemberChange> {
    return this.changeMember(team, user, "gone", (tx) => tx.query(`DELETE FROM ${MEMBERS} WHERE "team_id" = $1 AND "user_id" = $2`, [team, user]));
  }

  /**
   * One change to a member, in a transaction holding the team's row: refused ("last owner") when
   * it would take away the team's last owner (`demotes`: the member stops being an owner).
   */
  private async changeMember(team: number, user: number, demotes: MemberRole | "gone" | undefined, change: (tx: Queryable) => Promise<unknown>): Promise<MemberChange> {
    if (!isKey(team) || !isKey(user)) return "no such member";
    await this.ready();
    return this.db.transaction(async (tx) => {
      const locked = await tx.query(`SELECT "id" FROM ${TEAMS} WHERE "id" = $1 FOR UPDATE`, [team]);
      if (locked.rows[0] === undefined) return "no such member";
      const { rows } = await tx.query(`SELECT "role" FROM ${MEMBERS} WHERE "team_id" = $1 AND "user_id" = $2`, [team, user]);
      const now = rows[0]?.["role"];
      if (now === undefined) return "no such member";
      if (now === "owner" && demotes !== undefined) {
        const owners = await tx.query(`SELECT count(*) AS n FROM ${MEMBERS} WHERE "team_id" = $1 AND "role" = 'owner'`, [team]);
        if (Number(owners.rows[0]?.["n"] ?? 0) <= 1) return "last owner";
      }
      await change(tx);
      return "changed";
    });
  }

  async invite(invitation: { readonly team: number; readonly email: string; readonly role: MemberRole; readonly by: number; readonly tokenHash: string; readonly expiresAt: number }): Promise<Invitation> {
    await this.ready();
    const { rows } = await this.db.query(
      `INSERT INTO ${INVITATIONS} ("team_id", "email", "role", "token_hash", "invited_by", "expires_ms") VALUES ($1, $2, $3, $4, $5, $6) ` +
        `ON CONFLICT ("team_id", "email") DO UPDATE SET "role" = EXCLUDED."role", "token_hash" = EXCLUDED."token_hash", "invited_by" = EXCLUDED."invited_by", "expires_ms" = EXCLUDED."expires_ms" ` +
        `RETURNING "id", "team_id", "email", "role", "expires_ms"`,
      [invitation.team, invitation.email, invitation.role, invitation.tokenHash, invitation.by, Math.trunc(invitation.expiresAt)],
    );
    return invitationOf(rows[0] as Row);
  }

  async invitations(team: number, now: number): Promise<readonly Invitation[]> {
    if (!isKey(team)) return [];
    await this.ready();
    const { rows } = await this.db.query(`SELECT "id", "team_id", "email", "role", "expires_ms" FROM ${INVITATIONS} WHERE "team_id" = $1 AND "expires_ms" > $2 ORDER BY "id" DESC`, [team, Math.trunc(now)]);
    return rows.map(invitationOf);
  }

  async withdraw(team: number, invitation: number): Promise<boolean> {
    if (!isKey(team) || !isKey(invitation)) return false;
    await this.ready();
    const { rowCount } = await this.db.query(`DELETE FROM ${INVITATIONS} WHERE "team_id" = $1 AND "id" = $2`, [team, invitation]);
    return rowCount > 0;
  }

  async invitation(tokenHash: string): Promise<(Invitation & { readonly teamName: string }) | undefined> {
    await this.ready();
    const { rows } = await this.db.query(`SELECT i."id", i."team_id", i."email", i."role", i."expires_ms", t."name" FROM ${INVITATIONS} i JOIN ${TEAMS} t ON t."id" = i."team_id" WHERE i."token_hash" = $1`, [tokenHash]);
    const row = rows[0];
    return row === undefined ? undefined : { ...invitationOf(row), teamName: String(row["name"]) };
  }

  /** Deletes the invitation (a second accept finds none) and adds the member, in one transaction; a member already keeps their role. */
  async accept(tokenHash: string, user: number, now: number): Promise<Accepted> {
    if (!isKey(user)) return "gone";
    await this.ready();
    return this.db.transaction(async (tx): Promise<Accepted> => {
      const { rows } = await tx.query(`DELETE FROM ${INVITATIONS} WHERE "token_hash" = $1 RETURNING "team_id", "role", "expires_ms"`, [tokenHash]);
      const row = rows[0];
      if (row === undefined) return "gone";
      if (Number(row["expires_ms"]) <= now) return "expired";
      const team = Number(row["team_id"]);
      const role = row["role"] as MemberRole;
      const joined = await tx.query(`INSERT INTO ${MEMBERS} ("team_id", "user_id", "role") VALUES ($1, $2, $3) ON CONFLICT ("team_id", "user_id") DO NOTHING`, [team, user, role]);
      return { team, role, already: joined.rowCount === 0 };
    });
  }
}

function teamOf(row: Row): Team {
  return { id: Number(row["id"]), name: String(row["name"]) } as Team;
}

function invitationOf(row: Row): Invitation {
  return { id: Number(row["id"]), team: Number(row["team_id"]), email: String(row["email"]), role: row["role"] as MemberRole, expiresAt: Number(row["expires_ms"]) };
}

function isKey(id: unknown): id is number {
  return typeof id === "number" && Number.isSafeInteger(id) && id > 0;
}

/**
 * Refuses to delete a user who is the last owner of a team that has other members (issue 41: a
 * team is never left without an owner, as when the last owner leaves): its `code` is
 * `FW_LAST_OWNER` and `teams` names those teams, for the account page to say what to do first.
 */
export class LastOwnerError extends Error {
  readonly code = "FW_LAST_OWNER";

  constructor(readonly teams: readonly string[]) {
    super(`fw/db: the user is the last owner of ${teams.map((name) => `"${name}"`).join(", ")}, whose other members would be left without an owner: make one of them an owner first.`);
  }
}

/**
 * In `tx`, before user `user`'s row is deleted: the teams that go with them (those they are the
 * only member of, with their rows). Throws `LastOwnerError` when they are the last owner of a team
 * that keeps other members. Holds the rows of the teams they own, as a change of members does.
 * Nothing when the team tables were never made.
 */
export async function teamsGoingWith(tx: Queryable, user: number): Promise<number[]> {
  const made = await tx.query(`SELECT to_regclass('fw_team_members') IS NOT NULL AS made`);
  if (made.rows[0]?.["made"] !== true) return [];
  const { rows } = await tx.query(
    `SELECT t."id", t."name", m."role", ` +
      `(SELECT count(*) FROM ${MEMBERS} o WHERE o."team_id" = t."id" AND o."user_id" <> $1) AS "others", ` +
      `(SELECT count(*) FROM ${MEMBERS} o WHERE o."team_id" = t."id" AND o."user_id" <> $1 AND o."role" = 'owner') AS "owners" ` +
      `FROM ${TEAMS} t JOIN ${MEMBERS} m ON m."team_id" = t."id" AND m."user_id" = $1 ORDER BY t."name", t."id" FOR UPDATE OF t`,
    [user],
  );
  const stranded = rows.filter((row) => row["role"] === "owner" && Number(row["others"]) > 0 && Number(row["owners"]) === 0);
  if (stranded.length > 0) throw new LastOwnerError(stranded.map((row) => String(row["name"])));
  return rows.filter((row) => Number(row["others"]) === 0).map((row) => Number(row["id"]));
}

/** Deletes teams `ids` (their members, invitations and rows go with them: foreign keys ON DELETE CASCADE). */
export async function deleteTeams(tx: Queryable, ids: readonly number[]): Promise<void> {
  if (ids.length > 0) await tx.query(`DELETE FROM ${TEAMS} WHERE "id" = ANY($1::bigint[])`, [ids]);
}
