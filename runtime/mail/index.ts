/**
 * fw/mail — messages written with fw's JSX, sent through SMTP in production (`SMTP_URL`) and to a
 * dev mailbox (`/fw/mail`) in dev and tests. An optional module: the HTTP core never imports it.
 * Names are re-exported one by one.
 */
export { Mailer, MAILBOX_VARIABLE, DEV_MAILBOX, type MailerOptions, type MailOutbox } from "./mailer.js";
export { MailError, type ComposedMail, type Mail, type MailTransport } from "./message.js";
export { MailboxTransport, readMailbox, type MailboxEntry } from "./mailbox.js";
export { SmtpTransport, MailNotSent, SMTP_URL_VARIABLE } from "./smtp.js";
export { MAILBOX_PATH } from "./mailbox-pages.js";
