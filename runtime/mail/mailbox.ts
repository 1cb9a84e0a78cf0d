import { createHash, randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { envelopeOf, partsOf, type ComposedMail, type MailTransport } from "./message.js";

/** One message in the mailbox: the message, its key (the page's and the file's name), and its headers as sent. */
export interface MailboxEntry extends ComposedMail {
  /** `<ms since 1970, 13 digits>-<16 hex digits of the Message-ID's hash>`: sorts by time, names the message. */
  readonly key: string;
  /** The headers of the MIME message as SMTP would send it, in order (encoded words left as sent). */
  readonly sent: readonly (readonly [string, string])[];
}

/** A mailbox key: what a page's path may name. */
export const MAILBOX_KEY = /^[0-9]{13}-[0-9a-f]{16}$/;

/** The newest messages kept; older ones are removed as new ones arrive (a dev mailbox, not an archive). */
export const MAILBOX_LIMIT = 500;

/** The key of a composed message: the same message (its Message-ID and date) always has the same. */
export function mailboxKey(mail: ComposedMail): string {
  const time = String(Math.max(0, Date.parse(mail.date) || 0)).padStart(13, "0");
  return `${time}-${createHash("sha256").update(mail.id).digest("hex").slice(0, 16)}`;
}

/**
 * The dev and test transport: each message written as files in a folder (`.fw/mail` in dev,
 * `FW_MAILBOX` when set: fw/testing gives each test app its own), where the mailbox page and
 * `TestApp.mails()` read it, across restarts and from other processes. Nothing leaves the
 * machine. The same message delivered twice (a job run again) is one file.
 */
export class MailboxTransport implements MailTransport {
  readonly description: string;

  constructor(readonly directory: string) {
    this.description = `the mailbox in ${directory}`;
  }

  async deliver(mail: ComposedMail): Promise<void> {
    const key = mailboxKey(mail);
    const raw = await mimeOf(mail);
    const entry: MailboxEntry = { ...mail, key, sent: headersOf(raw) };
    await mkdir(this.directory, { recursive: true });
    // The .eml first: a reader that sees the .json finds both.
    await atomicWrite(join(this.directory, `${key}.eml`), raw);
    await atomicWrite(join(this.directory, `${key}.json`), JSON.stringify(entry));
    await prune(this.directory);
  }
}

/** The messages of a mailbox folder, newest first; none when it does not exist. A file that is not a message is skipped. */
export async function readMailbox(directory: string): Promise<MailboxEntry[]> {
  const keys = (await names(directory)).filter((name) => name.endsWith(".json")).map((name) => name.slice(0, -5)).filter((key) => MAILBOX_KEY.test(key));
  keys.sort().reverse();
  const entries = await Promise.all(keys.map((key) => readEntry(directory, key)));
  return entries.filter((entry): entry is MailboxEntry => entry !== undefined);
}

/** One message by key, or undefined. */
export async function readEntry(directory: string, key: string): Promise<MailboxEntry | undefined> {
  if (!MAILBOX_KEY.test(key)) return undefined;
  try {
    return JSON.parse(await readFile(join(directory, `${key}.json`), "utf8")) as MailboxEntry;
  } catch {
    return undefined;
  }
}

/** The raw message (RFC 5322) of one entry, or undefined. */
export async function readRaw(directory: string, key: string): Promise<Buffer | undefined> {
  if (!MAILBOX_KEY.test(key)) return undefined;
  return readFile(join(directory, `${key}.eml`)).catch(() => undefined);
}

/** Empties the mailbox. */
export async function clearMailbox(directory: string): Promise<void> {
  for (const name of await names(directory)) {
    if (/\.(json|eml)$/.test(name)) await rm(join(directory, name), { force: true });
  }
}

async function names(directory: string): Promise<string[]> {
  try {
    return await readdir(directory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}

/** Written under another name, then renamed: a reader never sees half a file. */
async function atomicWrite(path: string, data: string | Buffer): Promise<void> {
  const temporary = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  await writeFile(temporary, data);
  await rename(temporary, path);
}

/** Removes the oldest messages beyond the limit. */
async function prune(directory: string): Promise<void> {
  const keys = (await names(directory)).filter((name) => name.endsWith(".json")).map((name) => name.slice(0, -5)).filter((key) => MAILBOX_KEY.test(key));
  if (keys.length <= MAILBOX_LIMIT) return;
  keys.sort();
  for (const key of keys.slice(0, keys.length - MAILBOX_LIMIT)) {
    await rm(join(directory, `${key}.json`), { force: true });
    await rm(join(directory, `${key}.eml`), { force: true });
  }
}

/** The MIME message SMTP would carry, built by nodemailer's composer (loaded on first use). */
async function mimeOf(mail: ComposedMail): Promise<Buffer> {
  const { default: MailComposer } = await import("nodemailer/lib/mail-composer/index.js");
  return new MailComposer(nodemailerMessage(mail)).compile().build();
}

/**
 * A composed message as nodemailer's options: every field fw checked, nothing else. Addresses go
 * as fw read them (name and address apart) and with the envelope said, so nodemailer parses no
 * address text: a display name is never read as an address, nor an address as a name.
 */
export function nodemailerMessage(mail: ComposedMail): import("nodemailer").SendMailOptions {
  // A message queued by an older fw (a job's payload) has no envelope: its fields say it.
  const envelope = mail.envelope ?? envelopeOf(mail);
  return {
    messageId: mail.id,
    date: new Date(mail.date),
    from: partsOf(mail.from, "from"),
    to: mail.to.map((to) => partsOf(to, "to")),
    ...(mail.cc.length === 0 ? {} : { cc: mail.cc.map((cc) => partsOf(cc, "cc")) }),
    ...(mail.bcc.length === 0 ? {} : { bcc: mail.bcc.map((bcc) => partsOf(bcc, "bcc")) }),
    ...(mail.replyTo === undefined ? {} : { replyTo: partsOf(mail.replyTo, "replyTo") }),
    envelope: { from: envelope.from, to: [...envelope.to] },
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    headers: { ...mail.headers },
  };
}

/** The header lines of a raw message, unfolded. */
function headersOf(raw: Buffer): [string, string][] {
  const text = raw.toString("utf8");
  const end = text.indexOf("\r\n\r\n");
  const lines = (end === -1 ? text : text.slice(0, end)).replace(/\r\n[ \t]+/g, " ").split("\r\n");
  return lines.filter((line) => line.includes(":")).map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 1).trim()]);
}
