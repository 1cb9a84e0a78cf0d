import { Mailer } from "fw/mail";

/**
 * The example's mail: in `dev` it lands in the mailbox at /fw/mail (nothing leaves the machine);
 * in production it goes through the SMTP server SMTP_URL names, with links on FW_ORIGIN.
 * fw/auth sends through it: confirming a sign-up, "Forgot your password?", a change of email.
 * `send` composes the message and hands it to a job (src/jobs/DeliverMail.ts, wired in main.ts
 * by `mailer.sendThrough`), stored in the database, whose worker delivers it and tries again
 * when the server fails. This file does not import the jobs: the job imports the mailer.
 */
export const mailer = new Mailer({ from: "fw example <no-reply@example.com>" });
