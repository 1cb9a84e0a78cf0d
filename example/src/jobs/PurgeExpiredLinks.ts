import type { JobOptions } from "fw/jobs";
import { users } from "../auth.js";

// A recurring job: every night at 04:00 UTC, once across every process on the database, the
// emailed links that expired are deleted (fw_auth_tokens), and with them the sign-ups nobody
// confirmed (no account is made until the link is followed, so nothing else is left of them).
export const options: JobOptions = { cron: "0 4 * * *" };

export async function run(_payload: Record<string, never>): Promise<void> {
  await users.tokens().purgeExpired(Date.now());
}
