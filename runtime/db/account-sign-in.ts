/**
 * What "Download my data" tells of how a user signs in (issue 41), from fw's own tables when they
 * were made: their API tokens, passkeys, two-step sign-in, linked providers and teams. What each
 * is and when it was made and used, never what proves it: no token selector nor verifier hash,
 * no TOTP secret nor recovery code hashes, no passkey credential nor public key.
 */
import type { Queryable, Row } from "./database.js";
import { API_TOKENS_TABLE } from "./sql-api-tokens.js";
import { IDENTITIES_TABLE } from "./sql-identities.js";
import { PASSKEYS_TABLE } from "./sql-passkeys.js";
import { SECOND_FACTORS_TABLE } from "./sql-second-factors.js";
import { TEAMS_TABLE } from "./sql-teams.js";

/** The user's sign-in records, each list empty when its table was never made. */
export interface SignInRecords {
  readonly apiTokens: readonly { readonly name: string; readonly scopes: readonly string[]; readonly createdAt: string; readonly expiresAt: string; readonly lastUsedAt: string | null }[];
  readonly passkeys: readonly { readonly name: string; readonly createdAt: string; readonly lastUsedAt: string | null }[];
  readonly twoStepSignIn: boolean;
  readonly signInProviders: readonly { readonly provider: string; readonly subject: string; readonly email: string }[];
  readonly teams: readonly { readonly id: number; readonly name: string; readonly role: string }[];
}

export async function signInRecords(db: Queryable, userId: number): Promise<SignInRecords> {
  const made = await madeTables(db);
  const rows = async (table: string, sql: string): Promise<Row[]> => (made.has(table) ? (await db.query(sql, [userId])).rows : []);
  const [tokens, passkeys, second, identities, teams] = await Promise.all([
    rows(API_TOKENS_TABLE, `SELECT name, scopes, created_ms, expires_ms, last_used_ms FROM ${API_TOKENS_TABLE} WHERE user_id = $1 ORDER BY created_ms, name`),
    rows(PASSKEYS_TABLE, `SELECT name, created_ms, last_used_ms FROM ${PASSKEYS_TABLE} WHERE user_id = $1 ORDER BY created_ms, name`),
    rows(SECOND_FACTORS_TABLE, `SELECT enabled FROM ${SECOND_FACTORS_TABLE} WHERE user_id = $1`),
    rows(IDENTITIES_TABLE, `SELECT provider, subject, email FROM ${IDENTITIES_TABLE} WHERE user_id = $1 ORDER BY provider, subject`),
    rows("fw_team_members", `SELECT t."id", t."name", m."role" FROM fw_team_members m JOIN ${TEAMS_TABLE} t ON t."id" = m."team_id" WHERE m."user_id" = $1 ORDER BY t."name", t."id"`),
  ]);
  return {
    apiTokens: tokens.map((t) => ({ name: String(t["name"]), scopes: String(t["scopes"]).split(" ").filter((s) => s !== ""), createdAt: when(t["created_ms"]) as string, expiresAt: when(t["expires_ms"]) as string, lastUsedAt: when(t["last_used_ms"]) })),
    passkeys: passkeys.map((p) => ({ name: String(p["name"]), createdAt: when(p["created_ms"]) as string, lastUsedAt: when(p["last_used_ms"]) })),
    twoStepSignIn: second[0]?.["enabled"] === true,
    signInProviders: identities.map((i) => ({ provider: String(i["provider"]), subject: String(i["subject"]), email: String(i["email"]) })),
    teams: teams.map((t) => ({ id: Number(t["id"]), name: String(t["name"]), role: String(t["role"]) })),
  };
}

/** Which of fw's sign-in tables this database has. */
async function madeTables(db: Queryable): Promise<Set<string>> {
  const names = [API_TOKENS_TABLE, PASSKEYS_TABLE, SECOND_FACTORS_TABLE, IDENTITIES_TABLE, "fw_team_members"];
  const { rows } = await db.query(`SELECT n FROM unnest($1::text[]) AS n WHERE to_regclass(n) IS NOT NULL`, [names]);
  return new Set(rows.map((row) => String(row["n"])));
}

/** Milliseconds since the epoch as an ISO time; null for none. */
function when(ms: unknown): string | null {
  return ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString();
}
