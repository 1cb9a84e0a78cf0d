/** What fw/testing reads of the app's mailbox (fw/mail's `FW_MAILBOX` folder). */
import type { MailboxEntry } from "../mail/mailbox.js";

/** A message the app sent (fw/mail), as its mailbox keeps it, with the links of its HTML part. */
export interface SentMail extends MailboxEntry {
  /** The http(s) and mailto links of the HTML part, in order, each once. */
  readonly links: readonly string[];
}

/** Which message `mail` waits for. */
export interface MailFilter {
  readonly to: string;
  readonly subject?: string;
  readonly timeoutMs?: number;
}

/** The first message of the mailbox matching `filter`, waited for (see `TestApp.mail`). */
export async function waitForMail(directory: string, filter: MailFilter): Promise<SentMail> {
  const until = Date.now() + (filter.timeoutMs ?? 10_000);
  for (;;) {
    const mails = await sentMails(directory, filter.to);
    const found = mails.find((mail) => filter.subject === undefined || mail.subject === filter.subject);
    if (found !== undefined) return found;
    if (Date.now() > until) {
      const held = (await sentMails(directory, undefined)).map((mail) => `"${mail.subject}" to ${mail.to.join(", ")}`);
      throw new Error(`fw/testing: no mail${filter.subject === undefined ? "" : ` "${filter.subject}"`} to ${filter.to} arrived; the mailbox holds ${held.length === 0 ? "nothing" : held.join("; ")}`);
    }
    await new Promise((done) => setTimeout(done, 25));
  }
}

/** The mailbox's messages, oldest first, with their links; fw/mail's reader is loaded only when a test asks. */
export async function sentMails(directory: string, to: string | undefined): Promise<SentMail[]> {
  const [{ readMailbox }, { linksOf }] = await Promise.all([import("../mail/mailbox.js"), import("../mail/html-text.js")]);
  const wanted = to?.trim().toLowerCase();
  const named = (address: string): boolean => (/<([^>]+)>/.exec(address)?.[1] ?? address).trim().toLowerCase() === wanted;
  return (await readMailbox(directory))
    .reverse()
    .filter((mail) => wanted === undefined || [...mail.to, ...mail.cc, ...mail.bcc].some(named))
    .map((mail) => ({ ...mail, links: linksOf(mail.html) }));
}
