import { join, resolve } from "node:path";
import { traced } from "../observe/tracing.js";
import type { AppPart, AppPartBoot, AppPartContext } from "../app/app-part.js";
import { BootError } from "../routing/boot-error.js";
import { ORIGIN_VARIABLE, publicOrigin } from "../server/public-origin.js";
import { composeMail } from "./compose.js";
import { MailboxTransport } from "./mailbox.js";
import { MAILBOX_PATH, mailboxRoutes } from "./mailbox-pages.js";
import { checkedAddress, MailError, type ComposedMail, type Mail, type MailTransport } from "./message.js";
import { checkedSmtpUrl, SMTP_URL_VARIABLE, SmtpTransport } from "./smtp.js";

/** A folder the app's mail goes to instead (any mode): fw/testing gives each test app its own. */
export const MAILBOX_VARIABLE = "FW_MAILBOX";
/** The dev mailbox, under the app's folder (git-ignored with `.fw/`). */
export const DEV_MAILBOX = ".fw/mail";

/**
 * Where `send` hands a composed message (plain data) to be delivered later: a function, or a
 * queue's job whose `enqueue` takes the message (fw/jobs' `jobs.DeliverMail`), whose handler
 * calls `mailer.deliver(message)`.
 */
export type MailOutbox = ((mail: ComposedMail) => Promise<unknown>) | { readonly enqueue: (mail: ComposedMail) => Promise<unknown> };

export interface MailerOptions {
  /** The sender of every message that names none: `"Blog <no-reply@example.com>"`. */
  readonly from: string;
  /**
   * Where messages go. Default, chosen at each boot: the folder `FW_MAILBOX` names when it is
   * set; in `dev`, the dev mailbox (`.fw/mail`, shown at `/fw/mail`); in production, the SMTP
   * server `SMTP_URL` names (a production boot without it refuses to start, naming it).
   */
  readonly transport?: MailTransport;
  /**
   * What `send` does with a composed message. Default: `deliver` it at once (the caller waits for
   * the mail server). The seam for sending later: hand the message (plain data) to a queue, say
   * a background job whose handler calls `mailer.deliver(message)`. When that job's module
   * imports this mailer, name the job later instead, where the app is put together:
   * `mailer.sendThrough(jobs.DeliverMail)` in `src/main.ts` (see `sendThrough`).
   */
  readonly outbox?: MailOutbox;
  /** The origin app paths in messages resolve on. Default: the app's public origin (`FW_ORIGIN`; in dev, the address it serves on). */
  readonly origin?: string;
}

/**
 * fw/mail's mailer: composes messages written with fw's JSX and delivers them. Give it to the
 * app (`HttpApp`'s `parts: [mailer]`) so it checks its settings at boot and serves the dev
 * mailbox, and to handlers as a capability (`export const mailer = new Mailer({ … })` in the
 * capabilities module; a handler asks for `{ mailer: Mailer }`).
 */
export class Mailer implements AppPart {
  readonly name = "fw/mail";
  readonly #options: MailerOptions;
  #transport: MailTransport | undefined;
  /** The outbox as a function (a job's `enqueue` bound), made once where it is named. */
  #outbox: ((mail: ComposedMail) => Promise<unknown>) | undefined;
  #notice: ((line: string) => void) | undefined;

  constructor(options: MailerOptions) {
    this.#options = options;
    this.#transport = options.transport;
    this.#outbox = options.outbox === undefined ? undefined : sender(options.outbox);
  }

  /**
   * Makes `send` hand every message to `outbox` from now on, instead of delivering it at once:
   * `mailer.sendThrough(jobs.DeliverMail)` in `src/main.ts`, before the app starts. For the job
   * that delivers the mailer's messages: its file imports the mailer (its `run` calls
   * `mailer.deliver`), so the mailer's own module cannot import the jobs module back (that
   * would be an import circle); the app's main imports both. Throws if the mailer has an outbox
   * already (its `outbox` option or an earlier call): one place says where mail goes.
   */
  sendThrough(outbox: MailOutbox): void {
    if (this.#outbox !== undefined) {
      throw new MailError("fw/mail: this Mailer already has an outbox (its `outbox` option, or an earlier `sendThrough`): say where its mail goes in one place.");
    }
    this.#outbox = sender(outbox);
  }

  /** Where messages go now; throws, saying what to do, before the app booted it (without a `transport`). */
  get transport(): MailTransport {
    if (this.#transport === undefined) {
      throw new MailError("fw/mail: this Mailer has not booted, so it does not know where to send: give it to the app (HttpApp's `parts: [mailer]`), or give it a `transport`.");
    }
    return this.#transport;
  }

  /** At boot: checks `from`, chooses the transport, and in dev serves the mailbox at /fw/mail. */
  boot(context: AppPartContext): AppPartBoot {
    try {
      checkedAddress(this.#options.from, "the Mailer's from");
    } catch (error) {
      throw new BootError((error as Error).message);
    }
    if (!context.dev && context.origin === undefined && this.#options.origin === undefined) {
      throw context.missing(ORIGIN_VARIABLE, "fw/mail builds the links in mail on the app's public address (never a request's Host header)", "https://example.com");
    }
    const given = this.#options.transport;
    this.#notice = undefined;
    if (given !== undefined) {
      this.#transport = given;
      return {};
    }
    const folder = process.env[MAILBOX_VARIABLE];
    if (folder !== undefined && folder.trim() !== "") {
      this.#transport = new MailboxTransport(resolve(context.root, folder));
    } else if (context.dev) {
      this.#transport = new MailboxTransport(join(context.root, DEV_MAILBOX));
    } else {
      const url = process.env[SMTP_URL_VARIABLE];
      if (url === undefined || url.trim() === "") {
        throw context.missing(SMTP_URL_VARIABLE, "fw/mail sends the app's mail through this SMTP server in production", "smtps://user:password@smtp.example.com");
      }
      this.#transport = new SmtpTransport(checkedSmtpUrl(url, SMTP_URL_VARIABLE));
    }
    const transport = this.#transport;
    if (!context.dev || !(transport instanceof MailboxTransport)) return {};
    this.#notice = context.notice;
    return { routes: mailboxRoutes(transport.directory) };
  }

  /** The message made ready to deliver (see `composeMail`): checked, rendered, with its text part and Message-ID. */
  compose(mail: Mail): ComposedMail {
    return composeMail(mail, { from: this.#options.from, origin: this.#options.origin ?? publicOrigin() });
  }

  /** Composes the message and hands it to the outbox (by default: delivers it now). Resolves with the message sent. */
  async send(mail: Mail): Promise<ComposedMail> {
    const composed = this.compose(mail);
    if (this.#outbox === undefined) await this.deliver(composed);
    else await this.#outbox(composed);
    return composed;
  }

  /** Delivers a composed message through the transport (a job's handler calls this). */
  async deliver(mail: ComposedMail): Promise<void> {
    // A span of its own when traced: how many recipients, never who.
    const recipients = mail.to.length + mail.cc.length + mail.bcc.length;
    await traced("mail deliver", { kind: "client", attributes: { "fw.mail.transport": this.transport.constructor.name, "fw.mail.recipients": recipients } }, () => this.transport.deliver(mail));
    this.#notice?.(`fw/mail: "${mail.subject}" to ${mail.to.join(", ") || "(bcc only)"}: see ${MAILBOX_PATH} (nothing left the machine)`);
  }

  async close(): Promise<void> {
    await this.#transport?.close?.();
  }
}

/** An outbox as the function `send` calls: itself, or the job's `enqueue`. */
function sender(outbox: MailOutbox): (mail: ComposedMail) => Promise<unknown> {
  return typeof outbox === "function" ? outbox : (mail) => outbox.enqueue(mail);
}
