import type { Id } from "fw";
import { formSignIn } from "fw/auth";
import { processDatabase, SqlUsers } from "fw/db";
import { Mailer } from "fw/mail";

/** The app's roles: a site admin reads every team's drafts. */
export type Role = "admin";

export interface User {
  id: Id<User>;
  email: string;
  passwordHash: string;
  sessionEpoch: string;
  roles?: readonly Role[];
}

export const users = new SqlUsers<User>(processDatabase());
/** Teams need a mailer (invitations); the bench sends none (FW_MAILBOX keeps them in a folder). */
export const mailer = new Mailer({ from: "bench <no-reply@bench.example>" });
/** Teams on: each request reads the user with their roles and memberships (one statement). */
export const auth = formSignIn({ users, mailer, teams: true });
