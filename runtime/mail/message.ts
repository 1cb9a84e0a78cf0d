import type { Html } from "../html/node.js";
import { isBareEmail } from "../http/email-address.js";

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
  /**
   * The SMTP envelope, when it must be said rather than read from the headers: the mailboxes the
   * message is delivered to (`to`, SMTP's RCPT TO) and bounces go to (`from`, MAIL FROM), each
   * a bare address (no display name). fw/auth gives it the address it stored, so no reader can
   * take part of a stored string for a name. Default: the address of each of `to`, `cc` and
   * `bcc`, and of `from`, as fw read them once.
   */
  readonly envelope?: { readonly from?: string; readonly to?: readonly string[] };
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
  /**
   * Where the message goes: bare addresses, as given (`Mail.envelope`) or read once from the
   * fields. `composeMail` always sets it; a message queued by an older fw has none, and is
   * delivered to its fields' addresses.
   */
  readonly envelope?: Envelope;
}

/** The SMTP envelope of a message: MAIL FROM and RCPT TO, bare addresses. */
export interface Envelope {
  readonly from: string;
  readonly to: readonly string[];
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

/** One address of a message as fw reads it, once: the display name ("" when none) and the bare address. */
export interface AddressParts {
  readonly name: string;
  readonly address: string;
}

/**
 * A bare address (`ada@example.com`), or a display name then one in angle brackets (`Ada
 * Lovelace <ada@example.com>`, `"Lovelace, Ada" <ada@example.com>`); undefined for anything
 * else: a line break (it would write headers of its own), or an address part a mailer would
 * read as another address (a comment, a group, a list: see `isBareEmail`).
 */
export function addressParts(value: string): AddressParts | undefined {
  const text = value.trim();
  if (/[\p{Cc}]/u.test(text)) return undefined;
  if (isBareEmail(text)) return { name: "", address: text };
  const angled = /^([^<>]*)<([^<>]*)>$/.exec(text);
  if (angled === null || !isBareEmail(angled[2] as string)) return undefined;
  return { name: unquoted((angled[1] as string).trim()), address: angled[2] as string };
}

/** A display name without the double quotes around it (and the backslashes inside them). */
function unquoted(name: string): string {
  const quoted = /^"((?:[^"\\]|\\.)*)"$/.exec(name);
  return quoted === null ? name : (quoted[1] as string).replace(/\\(.)/g, "$1");
}

/** Checks one address, naming the field when it is not one (see `addressParts`); the address as written, trimmed. */
export function checkedAddress(value: string, field: string): string {
  if (typeof value !== "string" || addressParts(value) === undefined) {
    throw new MailError(`fw/mail: ${field} ${JSON.stringify(String(value).slice(0, 200))} is not an email address; write ada@example.com or "Ada Lovelace <ada@example.com>".`);
  }
  return value.trim();
}

/** Checks an address of the envelope: a bare one, naming the field when it is not. */
export function checkedBareAddress(value: string, field: string): string {
  if (typeof value !== "string" || !isBareEmail(value)) {
    throw new MailError(`fw/mail: ${field} ${JSON.stringify(String(value).slice(0, 200))} is not a bare email address; the envelope names mailboxes alone: write ada@example.com, with no name or brackets.`);
  }
  return value;
}

/** The parts of an address fw checked already (a composed message's, or a queued one's): throws when it is not one. */
export function partsOf(value: string, field: string): AddressParts {
  const parts = addressParts(value);
  if (parts === undefined) checkedAddress(value, field);
  return parts as AddressParts;
}

/** The envelope a message's own fields say: MAIL FROM the sender's address, RCPT TO every recipient's. */
export function envelopeOf(mail: Pick<ComposedMail, "from" | "to" | "cc" | "bcc">): Envelope {
  return {
    from: partsOf(mail.from, "from").address,
    to: [...mail.to.map((to) => partsOf(to, "to").address), ...mail.cc.map((cc) => partsOf(cc, "cc").address), ...mail.bcc.map((bcc) => partsOf(bcc, "bcc").address)],
  };
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
  const bare = partsOf(address, "from").address;
  return bare.slice(bare.lastIndexOf("@") + 1).toLowerCase();
}
