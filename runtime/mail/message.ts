import type { Html } from "../html/node.js";

/** A message to send, as the app writes it: `Mailer.send` composes it into a `ComposedMail`. */
export interface Mail {
  /** One address or several: `ada@example.com`, or `Ada Lovelace <ada@example.com>`. */
  readonly to: string | readonly string[];
  readonly cc?: string | readonly string[];
  readonly bcc?: string | readonly string[];
  /** Default: the mailer's `from`. */
  readonly from?: string;
  readonly replyTo?: string;
  readonly subject: string;
  /**
   * The HTML part, written with fw's JSX: rendered (escaped as pages are) into a whole document
   * titled with the subject. A link or image written with an app path (`href="/reset/…"`) is
   * made absolute on the app's public origin (`FW_ORIGIN`), never the request's Host.
   */
  readonly body: Html;
  /** The plain-text part. Default: derived from `body` (paragraphs, lists, links as "text (url)"). */
  readonly text?: string;
  /** More headers (`List-Unsubscribe`, …); the ones fw writes itself (From, To, Subject, …) are refused here. */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * A message ready to deliver: plain data (strings only), so it can wait in a queue (a job's
 * payload) and be delivered later, or twice, as the same message: its `id` is its Message-ID,
 * made once when it is composed, which a mailbox (and a receiving server) can tell again.
 */
export interface ComposedMail {
  /** The Message-ID, `<…@…>`. */
  readonly id: string;
  /** When it was composed (ISO 8601): its Date header. */
  readonly date: string;
  readonly from: string;
  readonly to: readonly string[];
  readonly cc: readonly string[];
  readonly bcc: readonly string[];
  readonly replyTo?: string;
  readonly subject: string;
  /** The HTML part: a whole document. */
  readonly html: string;
  readonly text: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** Where composed messages go: SMTP in production, the dev mailbox in dev and tests, or the app's own. */
export interface MailTransport {
  /** For messages: "SMTP smtp.example.com:465", "the mailbox in .fw/mail". */
  readonly description: string;
  /** Delivers one message; rejects when it was not accepted (the SMTP server's answer in the error). */
  deliver(mail: ComposedMail): Promise<void>;
  /** Lets go of connections (at shutdown). */
  close?(): Promise<void>;
}

/** A message fw refused to compose: the field and what is wrong with it (a mistake in the app's code). */
export class MailError extends Error {
  override readonly name = "MailError";
}

/** Headers fw writes from the message's fields, or the transport writes itself. */
const OWN_HEADERS = new Set([
  "from", "to", "cc", "bcc", "reply-to", "subject", "date", "message-id", "mime-version", "content-type",
  "content-transfer-encoding", "sender", "return-path",
]);

/** A header name: RFC 5322's printable characters but the colon. */
const HEADER_NAME = /^[!-9;-~]+$/;

/** One address: an optional display name, then something@domain, with no line break anywhere. */
const ADDRESS = /^(?:[^<>\r\n]*<[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+)$/;

/** Checks one address, naming the field when it is not one (a line break would inject headers). */
export function checkedAddress(value: string, field: string): string {
  const address = value.trim();
  if (!ADDRESS.test(address) || /[\r\n\0]/.test(address)) {
    throw new MailError(`fw/mail: ${field} ${JSON.stringify(value.slice(0, 200))} is not an email address; write ada@example.com or "Ada Lovelace <ada@example.com>".`);
  }
  return address;
}

/** The addresses of a field that takes one or several; undefined is none. */
export function checkedAddresses(value: string | readonly string[] | undefined, field: string): string[] {
  if (value === undefined) return [];
  const list = typeof value === "string" ? [value] : value;
  return list.map((address) => checkedAddress(address, field));
}

/** A subject: one line, not empty. */
export function checkedSubject(subject: string): string {
  if (/[\r\n\0]/.test(subject)) throw new MailError(`fw/mail: the subject ${JSON.stringify(subject.slice(0, 200))} has a line break; a subject is one line.`);
  if (subject.trim() === "") throw new MailError("fw/mail: the subject is empty; every message needs one.");
  return subject;
}

/** The app's own headers: valid names, one-line values, none that fw writes itself. */
export function checkedHeaders(headers: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const checked: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (!HEADER_NAME.test(name)) throw new MailError(`fw/mail: ${JSON.stringify(name)} is not a header name.`);
    if (OWN_HEADERS.has(name.toLowerCase())) throw new MailError(`fw/mail: the header ${name} is written from the message's fields; set the field instead of the header.`);
    if (typeof value !== "string" || /[\r\n\0]/.test(value)) throw new MailError(`fw/mail: the header ${name} must be one line of text.`);
    checked[name] = value;
  }
  return checked;
}

/** The domain of an address (for the Message-ID): `example.com` of `Ada <ada@example.com>`. */
export function domainOf(address: string): string {
  const bare = /<([^>]+)>/.exec(address)?.[1] ?? address;
  return bare.slice(bare.lastIndexOf("@") + 1).toLowerCase();
}
