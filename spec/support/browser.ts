import { csrfFrom } from "./serve.js";

/**
 * A minimal browser over fetch: keeps the session cookie between requests, follows nothing by
 * itself (each answer is asserted), and posts forms with the CSRF token of the last page.
 */
export class Visitor {
  private cookie: string | undefined;
  private token: string | undefined;

  /** @param extra headers sent with every request (a test app's stand-in for who is signed in). */
  constructor(
    private readonly base: string,
    private readonly extra: Readonly<Record<string, string>> = {},
  ) {}

  async get(path: string): Promise<{ status: number; html: string; response: globalThis.Response }> {
    const response = await fetch(this.base + path, { redirect: "manual", headers: this.headers() });
    const html = await this.keep(response);
    const match = /name="_csrf" value="([^"]+)"/.exec(html);
    if (match?.[1] !== undefined) this.token = csrfFrom(html);
    return { status: response.status, html, response };
  }

  /** Posts a form; `_csrf` is added from the last page unless the fields say otherwise. A list is sent as one value per item (a `<select multiple>`). */
  async post(path: string, fields: Record<string, string | readonly string[]>, withToken = true): Promise<{ status: number; html: string; location: string | null; response: globalThis.Response }> {
    const body = new URLSearchParams(withToken && this.token !== undefined && !("_csrf" in fields) ? { _csrf: this.token } : {});
    for (const [name, value] of Object.entries(fields)) for (const one of typeof value === "string" ? [value] : value) body.append(name, one);
    const response = await fetch(this.base + path, {
      method: "POST",
      redirect: "manual",
      headers: { ...this.headers(), "content-type": "application/x-www-form-urlencoded" },
      body: body.toString(),
    });
    const html = await this.keep(response);
    return { status: response.status, html, location: response.headers.get("location"), response };
  }

  private headers(): Record<string, string> {
    return this.cookie === undefined ? { ...this.extra } : { ...this.extra, cookie: this.cookie };
  }

  private async keep(response: globalThis.Response): Promise<string> {
    const set = response.headers.getSetCookie().find((c) => c.startsWith("fw_session="));
    if (set !== undefined) this.cookie = set.split(";")[0];
    return response.text();
  }
}
