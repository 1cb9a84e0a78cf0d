import { createClient, type ClientArgs } from "../client/client.js";
import type { ApiClient } from "../client/types.js";
import { CookieJar } from "./cookie-jar.js";
import { waitForMail } from "./mailbox.js";
import { describeRefusal, formsOf, pickForm, problemDetailOf, refusalOf, type PageForm, type Refusal } from "./forms.js";

/** One answer the client got, read whole. */
export interface TestResponse {
  readonly status: number;
  readonly headers: Headers;
  /** The body as text. */
  readonly text: string;
  /** The path it was asked for. */
  readonly path: string;
  /** `Location` of a redirect, as a path on the app when it points there. */
  readonly location: string | undefined;
  /** The forms of an HTML answer, in document order. */
  forms(): PageForm[];
  /**
   * What the page says was refused (a form answered 422): each field marked invalid with the
   * message tied to it, and the page's alerts. Empty on a page that refused nothing.
   */
  refusal(): Refusal;
  /**
   * The answer in one line, for an assertion's message: `POST /items answered 422: title: Title
   * is required.`, `POST /items answered 303 to /items/1`. A 422 says what it refused, read
   * from the page: `assert.equal(created.status, 303, created.summary())` tells why it was not.
   */
  summary(): string;
}

/** A file for a form's file field, as a browser would send it: `testFile("photo.png", bytes, "image/png")`. */
export interface TestFile {
  /** The file's name, as the browser gives it (the part's `filename`). */
  readonly name: string;
  /** What the browser says its type is (the part's Content-Type; fw reads the real type from the bytes). */
  readonly type: string;
  readonly bytes: Uint8Array;
}

/** A file to `submit` in a form's file field: its name, its bytes (text is sent as UTF-8) and the type a browser would claim. */
export function testFile(name: string, bytes: Uint8Array | string, type = "application/octet-stream"): TestFile {
  return { name, type, bytes: typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes };
}

/** What `submit` fills in and where it looks for the form. */
export interface SubmitOptions {
  /**
   * Which form of the page: the first whose `action` is this path. Default: the form (among those
   * carrying `_csrf`) that has a field for every name given; several posting to different places
   * throw, naming them (a page's form beside the layout's Sign out form, say).
   */
  readonly action?: string;
}

/**
 * A browser without a browser: one per visitor. It keeps the cookies the app sets (the session,
 * so sign-in and flash carry over), sends them back, and submits forms the way a browser does,
 * with the hidden `_csrf` (and `_method`) the page rendered. Redirects are not followed: a test
 * reads the 303 and its `location`, then `follow`s it.
 */
export class TestClient {
  readonly cookies = new CookieJar();

  /** `mailbox`: the app's mailbox folder (startApp's `FW_MAILBOX`), which `signUp` reads a confirmation link from. */
  constructor(
    readonly url: string,
    readonly mailbox?: string,
  ) {}

  /** GET a path of the app. */
  get(path: string, headers: Record<string, string> = {}): Promise<TestResponse> {
    return this.request("GET", path, undefined, headers);
  }

  /** POST urlencoded fields, exactly as given (no `_csrf` added: see `submit`). */
  post(path: string, fields: Readonly<Record<string, string>>, headers: Record<string, string> = {}): Promise<TestResponse> {
    return this.request("POST", path, new URLSearchParams(fields).toString(), { "content-type": "application/x-www-form-urlencoded", ...headers });
  }

  /**
   * Opens `pagePath`, takes its form (see `SubmitOptions`), fills in `fields` over what it
   * carries (`_csrf`, `_method`, hidden and prefilled inputs) and submits it to its `action`.
   * Throws when the page is not a 200 or has no such form, naming the page.
   */
  async submit(pagePath: string, fields: Readonly<Record<string, string | TestFile>>, options: SubmitOptions = {}): Promise<TestResponse> {
    const page = await this.get(pagePath);
    if (page.status !== 200) throw new Error(`fw/testing: GET ${pagePath} answered ${page.status}, not a page with a form to submit`);
    const form = pickForm(page.forms(), fields, pagePath, options.action);
    const filled = { ...form.fields, ...fields };
    const files = Object.entries(filled).filter((entry): entry is [string, TestFile] => typeof entry[1] !== "string");
    if (files.length > 0 && (form.method === "get" || !form.multipart)) {
      throw new Error(`fw/testing: the form of ${pagePath} posting to ${form.action} takes no files (no enctype="multipart/form-data"), but ${files.map(([name]) => name).join(", ")} ${files.length === 1 ? "is a file" : "are files"}`);
    }
    const texts = filled as Record<string, string>;
    if (form.method === "get") return this.get(`${form.action}?${new URLSearchParams(texts).toString()}`);
    return form.multipart ? this.postMultipart(form.action, filled) : this.post(form.action, texts);
  }

  /**
   * POST a `multipart/form-data` body, as a browser sends a form with a file field: each text
   * field, and each `TestFile` as a file part with its name and type. No `_csrf` added.
   */
  postMultipart(path: string, fields: Readonly<Record<string, string | TestFile>>, headers: Record<string, string> = {}): Promise<TestResponse> {
    const body = new FormData();
    for (const [name, value] of Object.entries(fields)) {
      if (typeof value === "string") body.append(name, value);
      else body.append(name, new Blob([value.bytes], { type: value.type }), value.name);
    }
    return this.request("POST", path, body, headers);
  }

  /** GETs where a redirect points; throws when the answer is not a redirect. */
  follow(response: TestResponse): Promise<TestResponse> {
    if (response.location === undefined) throw new Error(`fw/testing: ${response.path} answered ${response.status}, not a redirect`);
    return this.get(response.location);
  }

  /**
   * The app's JSON API as fw/client calls it, typed by its generated `Api`
   * (`import { answers, type Api } from "../.fw/api.js"` in `src/tests/`): `client.api<Api>({ answers }).get("/api/posts/:id", { id: 7 })`.
   * A wrong path, parameter or body is a type error; a refusal or an answer of another type
   * rejects with fw/client's `ApiError`. API routes read no cookie: this client's are not sent.
   * An app with routes that take an upload passes its `uploads` too (`{ answers, uploads }`): a
   * file field then takes a `Blob`, and the body goes as a multipart form.
   */
  api<A>(...options: ClientArgs<A>): ApiClient<A> {
    return createClient<A>(this.url, ...options);
  }

  /**
   * Signs up through fw/auth's form (`/signup`); fw/auth answers 303 to the login page. When the
   * app confirms emails (it has a mailer: the page says it sends a link), follows the link it
   * mailed (read from the mailbox) and confirms, which signs the client in, and answers that 303.
   */
  async signUp(email: string, password: string, path = "/signup"): Promise<TestResponse> {
    const page = await this.get(path);
    const answer = await this.submit(path, { email, password });
    if (!page.text.includes('class="fw-auth-confirming"') || answer.status !== 303 || this.mailbox === undefined) return answer;
    const mail = await waitForMail(this.mailbox, { to: email, subject: "Confirm your email" });
    const link = mail.links.find((href) => /[?&]token=/.test(href));
    if (link === undefined) throw new Error(`fw/testing: the mail confirming ${email} has no link with a token`);
    const parsed = new URL(link);
    const opened = await this.get(parsed.pathname + parsed.search);
    if (opened.location === undefined) throw new Error(`fw/testing: the confirmation link answered ${opened.summary()}`);
    return this.submit(opened.location, {}, { action: opened.location });
  }

  /**
   * Signs in through fw/auth's form (`/login`) and checks that it worked (a 303 away from the
   * login page); throws with the page's answer otherwise.
   */
  async signIn(email: string, password: string, path = "/login"): Promise<TestResponse> {
    const answer = await this.submit(path, { email, password });
    if (answer.status !== 303 || answer.location === undefined || answer.location.startsWith(path)) {
      throw new Error(`fw/testing: signing in as ${email} failed: ${answer.summary()}`);
    }
    return answer;
  }

  /** Signs out through fw/auth's `POST /logout`, with the CSRF token of a page (default `/`). */
  async signOut(pagePath = "/", path = "/logout"): Promise<TestResponse> {
    return this.submit(pagePath, {}, { action: path });
  }

  private async request(method: string, path: string, body: string | FormData | undefined, headers: Record<string, string>): Promise<TestResponse> {
    const cookie = this.cookies.header();
    const response = await fetch(this.url + path, {
      method,
      redirect: "manual",
      headers: { ...(cookie === undefined ? {} : { cookie }), ...headers },
      ...(body === undefined ? {} : { body }),
    });
    this.cookies.take(response.headers.getSetCookie());
    const text = await response.text();
    const location = response.headers.get("location") ?? undefined;
    const own = location === undefined ? undefined : location.startsWith(this.url) ? location.slice(this.url.length) || "/" : location;
    return {
      status: response.status,
      headers: response.headers,
      text,
      path,
      location: own,
      forms: () => formsOf(text, path.split("?")[0] as string),
      refusal: () => refusalOf(text),
      summary: () => summaryOf(method, path, response.status, own, text),
    };
  }
}

/**
 * `POST /items answered 422: title: Title is required.` (what the page refused), `… answered 403:
 * <a problem page's detail>`, or `… answered 303 to /items/1`.
 */
function summaryOf(method: string, path: string, status: number, location: string | undefined, text: string): string {
  const answered = `${method} ${path} answered ${status}`;
  if (location !== undefined) return `${answered} to ${location}`;
  const said = describeRefusal(refusalOf(text)) || (problemDetailOf(text) ?? "");
  return said === "" ? answered : `${answered}: ${said}`;
}
