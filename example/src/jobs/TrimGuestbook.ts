import type { JobOptions } from "fw/jobs";
import { guestbook } from "../capabilities.js";
import { KEPT_ENTRIES } from "../guestbook.js";

// A recurring job (fw/jobs, issue 32): every file under src/jobs/ named with a capital is a job
// the build finds, like a route. This one runs every night at 03:00 UTC, once across every
// process on the database; its payload is always `{}`.
export const options: JobOptions = { cron: "0 3 * * *" };

/** Keeps the newest KEPT_ENTRIES guestbook entries and deletes the rest. */
export async function run(_payload: Record<string, never>): Promise<void> {
  await guestbook.trim(KEPT_ENTRIES);
}
