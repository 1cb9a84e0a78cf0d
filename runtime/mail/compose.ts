import { randomUUID } from "node:crypto";
import { element, rawNode } from "../html/node.js";
import { isDocument, renderDocument } from "../html/render.js";
import { absoluteLinks, textOf } from "./html-text.js";
import { checkedAddress, checkedAddresses, checkedBareAddress, checkedHeaders, checkedSubject, domainOf, envelopeOf, MailError, type ComposedMail, type Mail } from "./message.js";

/** What composing needs beside the message: the sender by default, and the origin app paths resolve on. */
export interface ComposeContext {
  readonly from: string;
  /** The app's public origin (`https://example.com`). */
  readonly origin: string;
  /** Default: now. */
  readonly now?: Date;
}

/**
 * A message made ready to deliver: addresses, subject and headers checked (a line break in any
 * of them would let a value write headers of its own, and an address a mailer would read as
 * another would go elsewhere: refused), its envelope (the mailboxes it goes to) read once from
 * them unless given, the body rendered into a whole
 * HTML document with app paths made absolute on the origin, the text part derived when not
 * given, and a Message-ID of its own.
 */
export function composeMail(mail: Mail, context: ComposeContext): ComposedMail {
  const from = checkedAddress(mail.from ?? context.from, "from");
  const to = checkedAddresses(mail.to, "to");
  const cc = checkedAddresses(mail.cc, "cc");
  const bcc = checkedAddresses(mail.bcc, "bcc");
  if (to.length + cc.length + bcc.length === 0) throw new MailError("fw/mail: the message has no recipient: give `to` an address.");
  const subject = checkedSubject(mail.subject);
  const html = absoluteLinks(documentOf(mail, subject), context.origin);
  if (mail.text !== undefined && typeof mail.text !== "string") throw new MailError("fw/mail: `text` must be a string (the plain-text part), or left out to derive it from the body.");
  return {
    id: `<${randomUUID()}@${domainOf(from)}>`,
    date: (context.now ?? new Date()).toISOString(),
    from,
    to,
    cc,
    bcc,
    ...(mail.replyTo === undefined ? {} : { replyTo: checkedAddress(mail.replyTo, "replyTo") }),
    subject,
    html,
    text: mail.text ?? textOf(html),
    headers: checkedHeaders(mail.headers),
    envelope: envelopeFor(mail.envelope, { from, to, cc, bcc }),
  };
}

/** The envelope given (each address checked bare), or the one the checked fields say. */
function envelopeFor(given: Mail["envelope"], fields: Pick<ComposedMail, "from" | "to" | "cc" | "bcc">): ComposedMail["envelope"] {
  const own = envelopeOf(fields);
  if (given === undefined) return own;
  const to = given.to === undefined ? own.to : given.to.map((address) => checkedBareAddress(address, "envelope.to"));
  if (to.length === 0) throw new MailError("fw/mail: the envelope has no recipient: give `envelope.to` an address, or leave it out.");
  return { from: given.from === undefined ? own.from : checkedBareAddress(given.from, "envelope.from"), to };
}

/** The body as a whole document: as written when it is one (`<html>` at its root), else framed, titled with the subject. */
function documentOf(mail: Mail, subject: string): string {
  if (isDocument(mail.body)) return renderDocument(mail.body);
  return renderDocument(
    element("html", { lang: "en" }, [
      element("head", {}, [
        element("meta", { charset: "utf-8" }, []),
        element("meta", { name: "viewport", content: "width=device-width, initial-scale=1" }, []),
        element("title", {}, [subject]),
      ]),
      element("body", {}, [mail.body ?? rawNode("")]),
    ]),
  );
}
