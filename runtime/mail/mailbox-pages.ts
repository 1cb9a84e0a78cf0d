import { NotFound } from "../http/failure.js";
import type { Request } from "../http/request.js";
import { Ok, Redirect, type Response } from "../http/response.js";
import { element, fragment, type Child, type Html } from "../html/node.js";
import { asFwEndpoint } from "../routing/fw-endpoint.js";
import { Route, type HttpRoute } from "../routing/route.js";
import { linksOf } from "./html-text.js";
import { clearMailbox, readEntry, readMailbox, readRaw, type MailboxEntry } from "./mailbox.js";

/** The dev mailbox's page (spec 4.6: fw's own routes under `/fw`, in dev alone). */
export const MAILBOX_PATH = "/fw/mail";

/**
 * The dev mailbox: `GET /fw/mail` lists every message the app sent (newest first), `GET
 * /fw/mail/:key` shows one (its headers as sent, its HTML part in a sandboxed frame, its text
 * part, its links), `GET /fw/mail/:key/raw` the message as SMTP would carry it, and `POST
 * /fw/mail/clear` empties the mailbox (a form with the CSRF token).
 */
export function mailboxRoutes(directory: string): HttpRoute[] {
  const source = "fw/mail (dev mailbox)";
  return [
    Route.get(MAILBOX_PATH, async (request) => listPage(request, await readMailbox(directory)), { source }),
    Route.post(`${MAILBOX_PATH}/clear`, async () => {
      await clearMailbox(directory);
      return Redirect(MAILBOX_PATH);
    }, { source }),
    Route.get(`${MAILBOX_PATH}/:key`, async (request) => messagePage(await found(readEntry(directory, keyOf(request)))), { source }),
    Route.get(`${MAILBOX_PATH}/:key/raw`, async (request) => Ok(new Uint8Array(await found(readRaw(directory, keyOf(request)))), { contentType: "text/plain; charset=utf-8" }), { source }),
  ].map(asFwEndpoint);
}

function keyOf(request: Request): string {
  return String((request.params as Record<string, unknown>)["key"] ?? "");
}

async function found<T>(value: Promise<T | undefined>): Promise<T> {
  const result = await value;
  if (result === undefined) throw new NotFound("There is no such message in the dev mailbox (cleared, or older than the newest 500).");
  return result;
}

function listPage(request: Request, entries: readonly MailboxEntry[]): Response {
  const count = entries.length === 1 ? "1 message" : `${entries.length} messages`;
  return Ok(
    fragment([
      element("title", {}, ["Mailbox"]),
      element("h1", {}, ["Mailbox"]),
      element("p", {}, [`Every message this app sent in dev (${count}), newest first. Nothing here left the machine: production sends through SMTP_URL.`]),
      entries.length === 0
        ? element("p", { class: "fw-mail-empty" }, ["No mail yet."])
        : element("table", { class: "fw-mail-list" }, [
            element("thead", {}, [element("tr", {}, ["Date", "To", "Subject"].map((name) => element("th", {}, [name])))]),
            element("tbody", {}, entries.map((entry) =>
              element("tr", {}, [
                element("td", {}, [element("time", { datetime: entry.date }, [shownDate(entry.date)])]),
                element("td", {}, [[...entry.to, ...entry.cc, ...entry.bcc].join(", ")]),
                element("td", {}, [element("a", { href: `${MAILBOX_PATH}/${entry.key}` }, [entry.subject])]),
              ]),
            )),
          ]),
      entries.length === 0
        ? null
        : element("form", { method: "post", action: `${MAILBOX_PATH}/clear` }, [
            element("input", { type: "hidden", name: "_csrf", value: request.csrf }, []),
            element("button", { type: "submit" }, ["Delete every message"]),
          ]),
    ]),
  );
}

function messagePage(entry: MailboxEntry): Response {
  const links = linksOf(entry.html);
  return Ok(
    fragment([
      element("title", {}, [`${entry.subject} · Mailbox`]),
      element("p", {}, [element("a", { href: MAILBOX_PATH }, ["← Mailbox"])]),
      element("h1", {}, [entry.subject]),
      element("dl", { class: "fw-mail-fields" }, [
        field("From", entry.from),
        field("To", entry.to.join(", ")),
        entry.cc.length === 0 ? null : field("Cc", entry.cc.join(", ")),
        entry.bcc.length === 0 ? null : field("Bcc", entry.bcc.join(", ")),
        entry.replyTo === undefined ? null : field("Reply-To", entry.replyTo),
        field("Date", shownDate(entry.date)),
      ]),
      element("h2", {}, ["HTML"]),
      // Sandboxed: the message's markup runs no script, submits no form and cannot reach this
      // page; its links open in a new tab (<base target>, and the sandbox lets popups escape).
      element("iframe", {
        class: "fw-mail-html",
        title: `The HTML part of "${entry.subject}"`,
        sandbox: "allow-popups allow-popups-to-escape-sandbox",
        srcdoc: withBaseTarget(entry.html),
        style: "width:100%;min-height:24rem;border:1px solid #ccc",
      }, []),
      element("h2", {}, ["Text"]),
      element("pre", { class: "fw-mail-text", style: "white-space:pre-wrap" }, linked(entry.text)),
      element("h2", {}, ["Links"]),
      links.length === 0
        ? element("p", {}, ["The HTML part has no links."])
        : element("ul", { class: "fw-mail-links" }, links.map((href) => element("li", {}, [element("a", { href, target: "_blank", rel: "noopener noreferrer" }, [href])]))),
      element("h2", {}, ["Headers"]),
      element("table", { class: "fw-mail-headers" }, [
        element("tbody", {}, entry.sent.map(([name, value]) => element("tr", {}, [element("th", { scope: "row", style: "text-align:left" }, [name]), element("td", {}, [value])]))),
      ]),
      element("p", {}, [element("a", { href: `${MAILBOX_PATH}/${entry.key}/raw` }, ["The message as sent (RFC 5322)"])]),
    ]),
  );
}

function field(name: string, value: string): Html {
  return fragment([element("dt", {}, [name]), element("dd", {}, [value])]);
}

function shownDate(iso: string): string {
  return iso.replace("T", " ").replace(/\.\d+Z$/, " UTC");
}

/** The document with `<base target="_blank">` first in its head, so its links open outside the frame. */
function withBaseTarget(html: string): string {
  const base = '<base target="_blank">';
  const head = /<head\b[^>]*>/i.exec(html);
  return head === null ? base + html : html.slice(0, head.index + head[0].length) + base + html.slice(head.index + head[0].length);
}

/** The text with its http(s) URLs as links (the rest stays text, escaped by the renderer). */
function linked(text: string): Child[] {
  const parts: Child[] = [];
  let last = 0;
  for (const match of text.matchAll(/https?:\/\/[^\s<>()"]+/g)) {
    parts.push(text.slice(last, match.index));
    parts.push(element("a", { href: match[0], target: "_blank", rel: "noopener noreferrer" }, [match[0]]));
    last = (match.index ?? 0) + match[0].length;
  }
  parts.push(text.slice(last));
  return parts;
}
