import { BootError } from "../routing/boot-error.js";
import { nodemailerMessage } from "./mailbox.js";
import type { ComposedMail, MailTransport } from "./message.js";

/** The environment variable naming the SMTP server production sends through. */
export const SMTP_URL_VARIABLE = "SMTP_URL";

/** What a mail server said when it did not take a message. */
export class MailNotSent extends Error {
  override readonly name = "MailNotSent";
}

/** The SMTP URL with its password left out, for messages and logs. */
export function redactSmtpUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const user = parsed.username === "" ? "" : `${decodeURIComponent(parsed.username)}@`;
    return `${parsed.protocol}//${user}${parsed.host}`;
  } catch {
    return "(not a URL)";
  }
}

/**
 * Checks an SMTP URL at boot: `smtp://` (STARTTLS when the server offers it) or `smtps://` (TLS
 * from the start, port 465), a host, and user and password when the server wants them:
 * `smtps://user:password@smtp.example.com`. Names the variable and the fix; never prints the password.
 */
export function checkedSmtpUrl(url: string, setting: string): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url.trim());
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || (parsed.protocol !== "smtp:" && parsed.protocol !== "smtps:") || parsed.hostname === "") {
    throw new BootError(
      `${setting} (${redactSmtpUrl(url)}) is not an SMTP URL: write smtps://user:password@smtp.example.com (TLS, port 465) or smtp://user:password@smtp.example.com:587 (STARTTLS); percent-encode a password's special characters.`,
    );
  }
  return url.trim();
}

/**
 * The production transport: SMTP through nodemailer (a maintained mailer: TLS and STARTTLS,
 * authentication, connection handling, MIME and header encoding done as mail servers expect),
 * loaded on the first message. A message the server refuses rejects with `MailNotSent`, naming
 * the server (without its password) and its answer.
 */
export class SmtpTransport implements MailTransport {
  readonly description: string;
  #transporter: Promise<import("nodemailer").Transporter> | undefined;

  constructor(private readonly url: string) {
    this.description = `SMTP at ${redactSmtpUrl(url)}`;
  }

  async deliver(mail: ComposedMail): Promise<void> {
    const transporter = await this.transporter();
    try {
      await transporter.sendMail(nodemailerMessage(mail));
    } catch (error) {
      throw new MailNotSent(`fw/mail: ${this.description} did not take the message ${mail.id} to ${mail.to.join(", ")}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }

  async close(): Promise<void> {
    const transporter = this.#transporter;
    this.#transporter = undefined;
    if (transporter !== undefined) (await transporter).close();
  }

  private transporter(): Promise<import("nodemailer").Transporter> {
    this.#transporter ??= import("nodemailer").then((nodemailer) => nodemailer.createTransport(this.url));
    return this.#transporter;
  }
}
