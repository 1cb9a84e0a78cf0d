import type { JobOptions } from "fw/jobs";
import type { ComposedMail } from "fw/mail";
import { mailer } from "../mail.js";

// Every message the example sends (fw/auth's account mail) is a job: sending returns once the
// message is stored, and a worker delivers it (SMTP in production, the dev mailbox in dev), tried
// again with backoff when the mail server fails, kept with its error if it keeps failing. A try
// run twice delivers one message: it keeps its Message-ID.
export const options: JobOptions = { maxAttempts: 8 };

/** Delivers one composed message (plain data: what `mailer.send` hands to its outbox). */
export async function run(message: ComposedMail): Promise<void> {
  await mailer.deliver(message);
}
