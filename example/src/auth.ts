import type { Id } from "fw";
import { formSignIn, providersFromEnv, seedUser } from "fw/auth";
import { processDatabase, SqlUsers } from "fw/db";
import { mailer } from "./mail.js";

/** The example's roles: admins may delete guestbook entries (and reach what is theirs alone). */
export type Role = "admin";

/** A user of the example: an email and a password hash (never the password). */
export interface User {
  id: Id<User>;
  email: string;
  passwordHash: string;
  /** Changes when all the user's sessions end (sign out everywhere, a new password): fw/auth keeps it. */
  sessionEpoch: string;
  /** What the user may do beyond their own rows: `npm run db -- grant admin ada@example.com` on a server. */
  roles?: readonly Role[];
}

/** Users live in the app's database (the `users` table), beside the posts that name them. */
export const users = new SqlUsers<User>(processDatabase());

/**
 * What a per-user API token may be given (made on /account): each scope and what it lets a token
 * do. Their names are the app's scopes, `Scope`; an API route asks for one, and the build checks it.
 */
export const scopes = { "posts:write": "Write posts as you (POST /api/posts)" };
export type Scope = keyof typeof scopes;

/**
 * Sign-in by form: GET|POST /signup, GET|POST /login, POST /logout; with the mailer, sign-up
 * confirms the email by a link, and /password/forgot and /account (settings: password, email,
 * passkeys, two-step sign-in, API tokens) are mounted. "Sign in with …" appears for the
 * providers the environment configures (OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET; GitHub's
 * GITHUB_CLIENT_ID, GITHUB_CLIENT_SECRET), and is hidden otherwise.
 */
export const auth = formSignIn({ users, mailer, scopes, providers: providersFromEnv() });

/** The account `npm start` (dev only) creates, so there is someone to sign in as. */
export const DEMO = { email: "demo@example.com", password: "demo-password" } as const;

/**
 * The demo account of the example's seed (src/seed.ts: `db seed`, and every `dev` boot through
 * DbApp's `devBoot`), created when it is missing. Never in production by itself: a production boot does
 * not seed, and the README says not to seed a production database with a published password.
 */
export async function seedDemoUser(): Promise<User> {
  const demo = (await users.byEmail(DEMO.email)) ?? (await seedUser(users, DEMO.email, DEMO.password));
  // The demo account is the example's admin in dev (production: `db grant admin <email>`).
  if (demo.roles?.includes("admin") !== true) return (await users.setRoles(demo.id, [...(demo.roles ?? []), "admin"])) ?? demo;
  return demo;
}
