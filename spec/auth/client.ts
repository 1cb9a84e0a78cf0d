import { waitForMail } from "../../runtime/testing/mailbox.js";
import { TEST_MAILBOX } from "../support/serve.js";

/**
 * A browser for the auth tests: keeps the session cookie, remembers the CSRF token of the last
 * page that had one, and can send extra headers (the fixture counts sign-in failures per
 * X-Forwarded-For address, as an app behind its own proxy would). Follows no redirect.
 */
export class Browser {
  cookie: string | undefined;
  token: string | undefined;

  constructor(
    private readonly base: string,
    /** Sent with every request: `{ "x-forwarded-for": "10.0.0.1" }`. */
    private readonly extra: Record<string, string> = {},
  ) {}

  async get(path: string): Promise<Answer> {
    const answer = await this.send(path, { method: "GET" });
    const token = /name="_csrf" value="([^"]+)"/.exec(answer.html)?.[1];
    if (token !== undefined) this.token = token;
    return answer;
  }

  /** Posts a form with the last page's `_csrf` (fields may override it). */
  post(path: string, fields: Record<string, string>): Promise<Answer> {
    const body = new URLSearchParams({ ...(this.token === undefined ? {} : { _csrf: this.token }), ...fields }).toString();
    return this.send(path, { method: "POST", body, headers: { "content-type": "application/x-www-form-urlencoded" } });
  }

  /**
   * Signs up through the form (GET for the token, then POST) and, when that answered 303 (to
   * sign in: sign-up never signs in, so as not to tell which emails exist), signs in; answers
   * the sign-up's answer.
   */
  async signUp(email: string, password: string): Promise<Answer> {
    const page = await this.get("/signup");
    const answer = await this.post("/signup", { email, password });
    if (answer.status === 303 && page.html.includes('class="fw-auth-confirming"')) await this.confirm(email);
    if (answer.status === 303) await this.signIn(email, password);
    return answer;
  }

  /**
   * Follows the link an app with mail (the example) sent to confirm `email` (read from the
   * test's mailbox, PRODUCTION_ENV's FW_MAILBOX), and confirms: the account is made.
   */
  async confirm(email: string): Promise<void> {
    const mail = await waitForMail(TEST_MAILBOX, { to: email, subject: "Confirm your email" });
    const link = new URL(mail.links.find((href) => href.includes("token=")) ?? "");
    await this.get(link.pathname + link.search);
    await this.get("/confirm");
    const confirmed = await this.post("/confirm", {});
    if (confirmed.status !== 303) throw new Error(`confirming ${email} answered ${confirmed.status}: ${confirmed.html.slice(0, 500)}`);
  }

  /** Signs in through the form, as `signUp` does. */
  async signIn(email: string, password: string, next?: string): Promise<Answer> {
    await this.get("/login");
    return this.renewed(await this.post("/login", { email, password, ...(next === undefined ? {} : { next }) }));
  }

  /** A successful sign-in starts a new session without a token: a page with a form mints and shows the new one. */
  private async renewed(answer: Answer): Promise<Answer> {
    if (answer.status === 303) await this.get("/login");
    return answer;
  }

  private async send(path: string, init: { method: string; body?: string; headers?: Record<string, string> }): Promise<Answer> {
    const headers = { ...this.extra, ...init.headers, ...(this.cookie === undefined ? {} : { cookie: this.cookie }) };
    const response = await fetch(this.base + path, { ...init, headers, redirect: "manual" });
    const set = response.headers.getSetCookie().find((cookie) => cookie.startsWith("fw_session="));
    if (set !== undefined) this.cookie = set.split(";")[0];
    return { status: response.status, html: await response.text(), location: response.headers.get("location"), response };
  }
}

export interface Answer {
  readonly status: number;
  readonly html: string;
  readonly location: string | null;
  readonly response: globalThis.Response;
}

/** A password long enough for sign-up. */
export const PASSWORD = "correct horse battery";

let counter = 0;
/** A fresh email per call, so tests never share an account (or its rate limit). */
export function freshEmail(name: string): string {
  return `${name}-${process.pid}-${++counter}@example.com`;
}
