// The API-token rows of the json part (issue 42, item 4): the same `GET /api/posts` answer behind
// fw/auth's `apiKey` (a map read at boot, no statement) and behind a per-user token (fw_api_tokens,
// one statement a call), on the embedded database (PGlite, in .fw/db under the app's folder; a
// DATABASE_URL names PostgreSQL instead). The database's statements are counted, so the bench
// prints what a call costs.
import { writeFileSync } from "node:fs";
import type { Id } from "fw";
import { apiKey, formSignIn, seedUser } from "fw/auth";
import { openDatabase, SqlUsers, usersTableSql, type Database } from "fw/db";

export interface User { id: Id<User>; email: string; passwordHash: string; sessionEpoch: string }

const opened = await openDatabase({ durable: false });
// A fresh schema at every boot: fw makes its own tables on first use (roles, tokens, …), some with
// a foreign key to users, so dropping the tables one by one left one behind that refused the next drop.
await opened.script(`DROP SCHEMA public CASCADE; CREATE SCHEMA public; ${usersTableSql()}`);
let statements = 0;
/** The database, its statements counted (`GET /api/statements`). */
const db = new Proxy(opened, {
  get(target, name, receiver) {
    if (name === "query") return (...args: Parameters<Database["query"]>) => (statements++, target.query(...args));
    const value: unknown = Reflect.get(target, name, receiver);
    return typeof value === "function" ? value.bind(target) : value;
  },
});

export function statementsSoFar(): number {
  return statements;
}

export const users = new SqlUsers<User>(db);
export const auth = formSignIn({ users, mailer: { send: async () => undefined }, scopes: { "posts:read": "Read the posts" } });

/** The service key of the apiKey rows. */
export const API_KEY = "bench-service-key-0123456789abcdef0123456789";
export const service = apiKey({ keys: new Map([[API_KEY, 1]]) });

const user = await seedUser(users, "bench@example.com", "bench password 0123456789");
const tokens = auth.apiTokens;
if (tokens === undefined) throw new Error("the sign-in has scopes, so it has apiTokens");
const token = await tokens.issue(user.id, { name: "bench", scopes: ["posts:read"], days: 1 });
// The bench reads the token from here (it is shown once, as on /account).
writeFileSync(".fw/bench-token", token);
