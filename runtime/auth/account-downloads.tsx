/**
 * "Download my data" on the account pages (issue 41: a user's own data). The account page asks
 * for an export; a job makes it (the app's `AccountData`: fw/db's rows, fw/jobs' job, fw/files'
 * storage) and this mails its link. The link works once, for its user alone, until the export
 * expires (7 days): its token is random, kept hashed, bound to the user's session epoch, and
 * leaves the URL at once (kept in the session, as every emailed link of fw/auth's); following it
 * shows a Download button (POST, CSRF-checked), which uses the token up and sends the file, then
 * removes the export. docs/security.md says what each answer promises.
 */
import type { Html } from "../html/node.js";
import type { Request } from "../http/request.js";
import { Ok, Redirect, Response, status } from "../http/response.js";
import { sizeText } from "../resource/model-files.js";
import type { AccountData, AccountExports, ExportAsked, ExportState, MadeExport } from "./account-data.js";
import { freshToken, type AccountTokens, type CheckedToken, type TokenRecord } from "./account-tokens.js";
import type { UserFields, Users } from "./users.js";

/** What the downloads need of the account flows (accounts.ts): the user, the token in the session, the pages' answers. */
export interface DownloadsHost<U extends UserFields> {
  readonly data: AccountData;
  readonly users: Users<U>;
  readonly tokens: AccountTokens;
  readonly currentUser: (request: Request) => Promise<U | undefined>;
  /** The download token the session holds (the link's), checked: its user exists at the epoch it was sent for. */
  readonly linked: (request: Request) => Promise<(CheckedToken & { readonly user: U }) | undefined>;
  /** 429 when the client sent too many account forms. */
  readonly limited: (request: Request) => Promise<Response | undefined>;
  readonly toLogin: (request: Request, next: string) => Response;
  readonly deadLink: (request: Request) => Response;
  /** The account page's path, as the request reaches it. */
  readonly accountPath: (request: Request) => string;
  /** The session without the link's token. */
  readonly forget: (request: Request) => Request["session"];
  readonly send: (to: string, subject: string, body: Html) => Promise<void>;
  readonly report: (line: string) => void;
}

export class Downloads<U extends UserFields> {
  constructor(private readonly host: DownloadsHost<U>) {
    host.data.onExportReady((made) => this.ready(made));
  }

  /** The exports, when this app makes them. */
  private get exports(): AccountExports | undefined {
    return this.host.data.exports();
  }

  /** The account page's section, when exports are made here: what the user's latest export is doing, and the button. */
  async section(user: U, csrf: string, action: string): Promise<Html | undefined> {
    const exports = this.exports;
    if (exports === undefined) return undefined;
    return downloadSection(await exports.latest(user.id), csrf, action, user.email);
  }

  /** `POST /account/data`: asks for an export; the answer says what comes next (303 to the account page). */
  async request(request: Request, page: string): Promise<Response> {
    const limited = await this.host.limited(request);
    if (limited !== undefined) return limited;
    const user = await this.host.currentUser(request);
    if (user === undefined) return this.host.toLogin(request, this.host.accountPath(request));
    const exports = this.exports;
    if (exports === undefined) return status(404, saidNoExports());
    const asked = await exports.request(user.id, page);
    return Redirect(this.host.accountPath(request)).withSession(request.session.flash("notice", askedNotice(asked, user.email)));
  }

  /** `GET /account/data/:id`: the mailed link's page (its token moved into the session first): a Download button. */
  async page(request: Request, id: string): Promise<Response> {
    const checked = await this.checked(request, id);
    if (checked instanceof Response) return checked;
    return Ok(downloadPage(checked.state, request.csrf, request.path));
  }

  /** `POST /account/data/:id`: uses the link up and sends the export, which is removed once sent. */
  async download(request: Request, id: string): Promise<Response> {
    const limited = await this.host.limited(request);
    if (limited !== undefined) return limited;
    const checked = await this.checked(request, id);
    if (checked instanceof Response) return checked;
    if (!(await this.host.tokens.take(checked.link.record.selector, checked.link.verifierHash))) return this.host.deadLink(request);
    const file = await checked.exports.open(id, checked.user.id);
    if (file === undefined) return status(404, saidGone());
    const stream = await file.open();
    // Once: the export goes when its bytes are sent (or the transfer broke off).
    stream.once("close", () => void checked.exports.remove(id).catch((error: unknown) => this.host.report(`fw/auth: the export ${id} could not be removed: ${String(error)}`)));
    return new Response(
      200,
      [
        ["content-type", file.type],
        // The name is fw's own (`my-data-2026-11-29.zip`): plain ASCII, nothing to escape.
        ["content-disposition", `attachment; filename="${file.name}"`],
        ["cache-control", "no-store"],
        ["x-content-type-options", "nosniff"],
      ],
      { type: "stream", length: file.size, open: async () => stream },
    ).withSession(this.host.forget(request));
  }

  /**
   * The checks both steps make, each its own answer: signed in (else sign in first); the link in
   * the session works (400: used, expired, replaced, its account deleted, or none); it was sent to
   * the signed-in account (403: a link forwarded to someone else); the export is theirs and still
   * kept (404).
   */
  private async checked(request: Request, id: string): Promise<{ readonly user: U; readonly link: CheckedToken; readonly exports: AccountExports; readonly state: ExportState } | Response> {
    const exports = this.exports;
    if (exports === undefined) return status(404, saidNoExports());
    const user = await this.host.currentUser(request);
    if (user === undefined) return this.host.toLogin(request, request.path);
    const link = await this.host.linked(request);
    if (link === undefined || link.record.data !== id) {
      const state = await exports.find(id, user.id);
      return state === undefined ? status(404, saidGone()) : this.host.deadLink(request);
    }
    if (link.user.id !== user.id) return status(403, saidNotYours());
    const state = await exports.find(id, user.id);
    if (state === undefined) return status(404, saidGone());
    return { user, link, exports, state };
  }

  /** An export was made (by its job, in this process): its link goes to the account's email. A failure fails the job, which tries again. */
  private async ready(made: MadeExport): Promise<void> {
    const user = await this.host.users.byId(made.userId);
    if (user === undefined) return;
    const { token, record } = freshToken({ purpose: "download-data", userId: user.id, email: user.email, data: made.id, epoch: user.sessionEpoch, expiresAt: made.expiresAt });
    await this.host.tokens.save(record satisfies TokenRecord);
    await this.host.send(user.email, "Your data is ready to download", readyMail(`${made.page}?token=${token}`, made));
  }
}

/** When an export lasts until, as the pages say it: "1 December 2026, 14:05 UTC". */
function when(ms: number): string {
  const date = new Date(ms);
  const day = date.toLocaleDateString("en-GB", { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" });
  return `${day}, ${date.toISOString().slice(11, 16)} UTC`;
}

function askedNotice(asked: ExportAsked, email: string): string {
  switch (asked.state) {
    case "queued":
      return `We are gathering your data. We mail a link to ${email} when it is ready; the link works once, for 7 days.`;
    case "pending":
      return `Your data is being gathered already (you asked at ${when(asked.requestedAt)}): we mail a link to ${email} when it is ready.`;
    case "recent":
      return `We mailed a link to your data to ${email} at ${when(asked.readyAt)}; it works until ${when(asked.expiresAt)}. You can ask for a new one an hour after the last.`;
  }
}

function downloadSection(latest: ExportState | undefined, csrf: string, action: string, email: string): Html {
  const status =
    latest === undefined ? null : latest.readyAt === undefined ? (
      <p>Your data is being gathered (you asked at {when(latest.requestedAt)}): we mail a link to {email} when it is ready.</p>
    ) : (
      <p>
        Your data was made at {when(latest.readyAt)}: the link we mailed to {email} works once, until {when(latest.expiresAt ?? latest.readyAt)}.
      </p>
    );
  return (
    <section>
      <h2>Download your data</h2>
      <p>Everything of yours this site keeps, as JSON (in a zip with the files you uploaded, when there are some). We gather it in the background and mail you a link.</p>
      {status}
      <form method="post" action={action} class="fw-form fw-auth">
        <input type="hidden" name="_csrf" value={csrf} />
        <button type="submit">Send me my data</button>
      </form>
    </section>
  );
}

function downloadPage(state: ExportState, csrf: string, action: string): Html {
  return (
    <>
      <title>Download your data</title>
      <h1>Download your data</h1>
      <p>
        Made at {when(state.readyAt ?? state.requestedAt)}, {sizeText(state.size ?? 0)}. The link works once: ask again on your account page for another copy.
      </p>
      <form method="post" action={action} class="fw-form fw-auth">
        <input type="hidden" name="_csrf" value={csrf} />
        <button type="submit">Download my data</button>
      </form>
    </>
  );
}

function readyMail(link: string, made: MadeExport): Html {
  return (
    <>
      <p>The data you asked for is ready: {made.zip ? "a zip of JSON and the files you uploaded" : "a JSON file"}, {sizeText(made.size)}.</p>
      <p><a href={link}>Download your data</a></p>
      <p>The link works once, for you alone (signed in to your account), until {when(made.expiresAt)}. If you did not ask for it, change your password: someone signed in to your account did.</p>
    </>
  );
}

function said(title: string, text: string): Html {
  return (
    <>
      <title>{title}</title>
      <h1>{title}</h1>
      <p class="fw-auth-error" role="alert">{text}</p>
    </>
  );
}

function saidGone(): Html {
  return said("There is no such download", "There is no such export of your data: it was downloaded already, it expired, or it is not yours. Ask for a new one on your account page.");
}

function saidNotYours(): Html {
  return said("This link is for another account", "This download link was sent to another account: only that account, signed in, can use it.");
}

function saidNoExports(): Html {
  return said("There is no data download here", "This site makes no exports of your data.");
}
