import type { Id } from "fw";
import { formSignIn, InMemoryUsers, seedUser } from "fw/auth";

/** A user of the example: an email and a password hash (never the password). */
export interface User {
  id: Id<User>;
  email: string;
  passwordHash: string;
  /** Changes when all the user's sessions end (sign out everywhere, a new password): fw/auth keeps it. */
  sessionEpoch: string;
}

/** Users live in memory, as long as the process. */
export const users = new InMemoryUsers<User>();

/** Sign-in by form: GET|POST /signup, GET|POST /login, POST /logout. */
export const auth = formSignIn({ users });

/** The account `npm start` (dev only) creates, so there is someone to sign in as. */
export const DEMO = { email: "demo@example.com", password: "demo-password" } as const;

/** Creates the demo account; called in dev only, where there is no real user data to protect. */
export async function seedDemoUser(): Promise<void> {
  await seedUser(users, DEMO.email, DEMO.password);
}
