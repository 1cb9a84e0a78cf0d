import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BadRequest,
  Forbidden,
  FromPath,
  NotFound,
  Ok,
  Redirect,
  Request,
  Route,
  RouteTable,
  status,
  type Layout,
} from "../../runtime/index.js";
import { csrfFrom, rawRequest, serve, sessionCookie, type Served } from "../support/serve.js";

const layout: Layout = ({ title, content, request }) => (
  <html lang="en">
    <head>
      <title>{`${title ?? "untitled"} | site`}</title>
    </head>
    <body>
      <p id="flash">{request.session.flashed("notice") ?? ""}</p>
      <p id="layout-csrf">{request.hasCsrf ? "has-token" : "no-token"}</p>
      {content}
    </body>
  </html>
);

const formPage = (request: Request) =>
  Ok(
    <>
      <title>Form</title>
      <form method="post" action="/form">
        <input type="hidden" name="_csrf" value={request.csrf} />
      </form>
    </>,
  );

const echo = (request: Request) => Ok(`${request.method} ${request.form.get("x") ?? ""}`);

const table = RouteTable.of(
  Route.get("/", () => Ok(<p>home</p>)),
  Route.get("/form", formPage),
  Route.post("/form", (request) =>
    Redirect("/form").withSession(request.session.flash("notice", `saved ${request.form.get("x") ?? ""}`)),
  ),
  Route.post("/echo", echo),
  Route.options("/preflight", (request) => Ok(`OPTIONS ${request.hasCsrf ? "token" : "none"}`).withHeader("allow", "OPTIONS, POST")),
  Route.put("/echo", echo),
  Route.patch("/echo", echo),
  Route.delete("/echo", echo),
  Route.get("/read-only", (request) => Ok(`user=${request.session.get("user") ?? "none"}`)),
  Route.get("/login-as/:name", (request) => Redirect("/").withSession(request.session.set("user", request.params["name"] ?? ""))),
  Route.get("/logout", (request) => Redirect("/").withSession(request.session.cleared())),
  Route.get("/big-session", (request) => Ok("big").withSession(request.session.set("blob", "x".repeat(5000)))),
  Route.get("/big-flash", (request) =>
    Redirect("/form").withSession(request.session.set("user", "flo").flash("notice", "short").flash("long", "y".repeat(5000))),
  ),
  Route.get("/huge-flash", (request) => Redirect("/form").withSession(request.session.flash("a", "y".repeat(2000)).flash("b", "z".repeat(2100)))),
  Route.get("/items/:id", (request: Request<{ id: number }>) => Ok(`item ${request.params.id + 1}`), { params: { id: FromPath.int } }),
  Route.get("/segments/:one", (request) => Ok(`one=${request.params["one"]}`)),
  Route.get("/files/*rest", (request) => Ok(`rest=${request.params["rest"]}`)),
  Route.get("/document", () => Ok(<html><head><title>mine</title></head><body>whole</body></html>)),
  Route.get("/teapot", () => status(418, "short and stout").withHeader("x-a", "1").withHeader("x-a", "2")),
  Route.get("/throws", () => {
    throw new Error("secret detail 7f3a");
  }),
  Route.get("/not-found", () => {
    throw new NotFound("No such <thing>.");
  }),
  Route.get("/forbidden", () => {
    throw new Forbidden();
  }),
  Route.get("/bad", () => {
    throw new BadRequest();
  }),
  Route.get("/redirect-crlf", () => Redirect("/x\r\nSet-Cookie: evil=1")),
  Route.get("/query", (request) => Ok(`q=${request.query.get("q") ?? ""}`)),
  Route.api({ method: "GET", path: "/api/whoami", handler: (request) => Ok(`cookie header: ${request.headers.get("cookie") ?? "none"}`) }),
  Route.api({ method: "POST", path: "/api/items", handler: (request) => status(201, request.text) }),
  Route.api({ method: "POST", path: "/api/things", handler: (request) => Ok(`POST ${request.method}`) }),
  Route.api({ method: "PUT", path: "/api/things", handler: () => Ok("PUT reached") }),
  Route.api({ method: "PATCH", path: "/api/things", handler: () => Ok("PATCH reached") }),
  Route.api({ method: "DELETE", path: "/api/things", handler: () => Ok("DELETE reached") }),
  Route.api({ method: "DELETE", path: "/api/only-delete", handler: () => Ok("DELETE reached") }),
  { ...Route.get("/copied", (request) => Ok(`user=${request.session.get("user") ?? "nobody"}`)), kind: Route.api({ method: "GET", path: "/x", handler: () => Ok("") }).kind },
  Route.ws("/socket", { message() {} }),
);

let app: Served;
beforeAll(async () => {
  app = await serve({ routes: table, layout, maxBodySize: 1000 });
});
afterAll(() => app.close());

/** A browser visit: GET `path`, keeping the cookie, returning the page and the cookie to send next. */
async function visit(path: string, cookie?: string): Promise<{ html: string; cookie: string | undefined; response: globalThis.Response }> {
  const response = await app.get(path, cookie === undefined ? {} : { headers: { cookie } });
  return { html: await response.text(), cookie: sessionCookie(response) ?? cookie, response };
}

describe("2.18 Method", () => {
  it.each(["TRACE", "PROPFIND", "PURGE"])("%s reaching the app → 501 problem page", async (method) => {
    const answer = await rawRequest(app.port, `${method} / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1.1 501 Not Implemented/);
    expect(answer).toContain("<h1>501 Not Implemented</h1>");
  });

  it("CONNECT → 501 instead of a dropped socket", async () => {
    const answer = await rawRequest(app.port, "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n");
    expect(answer).toMatch(/^HTTP\/1.1 501 Not Implemented/);
  });

  it.each([
    ["FROB", "/items?x=1", "<code>/items</code>", "fw does not serve FROB requests."],
    ["get", "/", "<code>/</code>", "Methods are case-sensitive: send GET."],
  ])("a method Node's parser cannot read (%s) → the same framed 501 problem page as TRACE", async (method, target, instance, detail) => {
    const answer = await rawRequest(app.port, `${method} ${target} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1.1 501 Not Implemented/);
    expect(answer).toContain("<h1>501 Not Implemented</h1>");
    expect(answer).toContain("<title>Not Implemented | site</title>");
    expect(answer).toContain(instance);
    expect(answer).toContain(detail);
    expect(answer.toLowerCase()).toContain("connection: close");
  });
});

describe("2.3 / 4.1 Paths", () => {
  it("ignores a trailing slash", async () => {
    expect(await (await app.get("/segments/a/")).text()).toBe("one=a");
    expect((await app.get("/form/")).status).toBe(200);
  });

  it("decodes each segment after splitting: %2F stays inside its segment", async () => {
    expect(await (await app.get("/segments/a%2Fb")).text()).toBe("one=a/b");
    expect((await app.get("/segments/a/b")).status).toBe(404);
  });

  it("a catch-all captures the rest, including nothing", async () => {
    expect(await (await app.get("/files/a/b%20c/d")).text()).toBe("rest=a/b c/d");
    expect(await (await app.get("/files")).text()).toBe("rest=");
  });

  it.each(["/segments/%E0%A4%A", "/segments/%ZZ", "/segments/%C0%AF", "/segments/%FF", "/segments/..", "/segments/%2e%2e", "/segments/%00"])(
    "a malformed, overlong or dot segment (%s) → 400",
    async (path) => {
      const response = await rawRequest(app.port, `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      expect(response).toMatch(/^HTTP\/1.1 400 Bad Request/);
    },
  );

  it("a FromPath conversion that fails → 400 naming the parameter; one that works reaches the handler typed", async () => {
    expect(await (await app.get("/items/41")).text()).toBe("item 42");
    const bad = await app.get("/items/forty");
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("The path parameter &quot;id&quot; is not a valid integer.");
  });
});

describe("4.3 Matching outcomes", () => {
  it("nothing matches → 404 problem page framed by the layout, without a CSRF token", async () => {
    const response = await app.get("/nowhere/<script>");
    expect(response.status).toBe(404);
    const html = await response.text();
    expect(html.startsWith("<!DOCTYPE html><html")).toBe(true);
    expect(html).toContain("<title>Not Found | site</title>");
    expect(html).toContain("no-token");
    expect(html).toContain("/nowhere/%3Cscript%3E");
    expect(sessionCookie(response)).toBeUndefined();
  });

  it("path matches but not the method → 405 with Allow (HEAD beside GET)", async () => {
    const response = await app.get("/echo");
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST, PUT, PATCH, DELETE");
    const form = await fetch(app.url + "/form", { method: "DELETE" });
    expect(form.status).toBe(405);
    expect(form.headers.get("allow")).toBe("GET, POST, HEAD");
  });

  it("HEAD is served by the GET route with the body dropped and its length kept", async () => {
    const get = await app.get("/read-only");
    const head = await fetch(app.url + "/read-only", { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    expect(head.headers.get("content-length")).toBe(get.headers.get("content-length"));
  });

  it("OPTIONS with no OPTIONS route → 405 with Allow", async () => {
    const response = await fetch(app.url + "/form", { method: "OPTIONS" });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET, POST, HEAD");
  });

  it("a plain GET to a WebSocket route → 400 saying it takes sockets only", async () => {
    const response = await app.get("/socket");
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("WebSocket connections only");
  });
});

describe("2.7 Response", () => {
  it("any status, ordered headers with duplicates", async () => {
    const response = await app.get("/teapot");
    expect(response.status).toBe(418);
    expect(response.headers.get("x-a")).toBe("1, 2");
    expect(await response.text()).toBe("short and stout");
  });

  it("a redirect is 303 by default; a Location with CR/LF is refused with 400, not sent", async () => {
    const response = await app.get("/login-as/x");
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/");
    const crlf = await app.get("/redirect-crlf");
    expect(crlf.status).toBe(400);
    expect(crlf.headers.get("set-cookie")).toBeNull();
  });
});

describe("2.17 Layout", () => {
  it("lifts the first <title> the route wrote and frames the content", async () => {
    const { html } = await visit("/form");
    expect(html).toMatch(/^<!DOCTYPE html><html lang="en"><head><title>Form \| site<\/title>/);
    expect(html.match(/<title>/g)).toHaveLength(1);
    expect(html).toContain('<form method="post" action="/form">');
  });

  it("the layout gets the request as it arrived: a first visit has no CSRF token there, a later one has", async () => {
    const first = await visit("/form");
    expect(first.html).toContain("no-token");
    expect(first.cookie).toBeDefined();
    const second = await visit("/form", first.cookie);
    expect(second.html).toContain("has-token");
  });

  it("a route returning a whole <html> document is sent as written, with the doctype", async () => {
    expect(await (await app.get("/document")).text()).toBe(
      "<!DOCTYPE html><html><head><title>mine</title></head><body>whole</body></html>",
    );
  });

  it("a layout that throws → plain-text 500; the server goes on serving", async () => {
    const throwing = await serve({
      routes: RouteTable.of(Route.get("/", () => Ok(<p>x</p>)), Route.get("/text", () => Ok("fine"))),
      layout: ({ request }) => <html>{request.csrf}</html>,
    });
    try {
      const response = await throwing.get("/");
      expect(response.status).toBe(500);
      expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
      expect(await response.text()).toBe("500 Internal Server Error\n");
      const notFound = await throwing.get("/missing");
      expect(notFound.status).toBe(500);
      expect(await notFound.text()).toBe("500 Internal Server Error\n");
      expect(await (await throwing.get("/text")).text()).toBe("fine");
      expect(throwing.err.join("\n")).toContain("no CSRF token");
    } finally {
      await throwing.close();
    }
  });

  it("a layout may answer later (it reads a store): pages, error pages, CONNECT's 501 and refused socket upgrades come framed by what it answers, cookies as before; one that rejects → plain-text 500", async () => {
    const settled = () => new Promise<void>((done) => setImmediate(done));
    const later: Layout = async ({ title, content, request }) => {
      await settled();
      return (
        <html>
          <head>
            <title>{title ?? "untitled"}</title>
          </head>
          <body>
            <p id="later">framed later, {request.hasCsrf ? "has-token" : "no-token"}</p>
            {content}
          </body>
        </html>
      );
    };
    const routes = RouteTable.of(
      Route.get("/", () => Ok(<p>page</p>)),
      Route.get("/remember", (request: Request) => Ok(<p>kept</p>).withSession(request.session.set("kept", "yes"))),
      Route.ws("/socket", { message: () => undefined }),
    );
    const framedLater = await serve({ routes, layout: later });
    const rejecting = await serve({
      routes,
      layout: async () => {
        await settled();
        throw new Error("the users store is down");
      },
    });
    try {
      const page = await framedLater.get("/");
      expect(page.status).toBe(200);
      expect(await page.text()).toBe('<!DOCTYPE html><html><head><title>untitled</title></head><body><p id="later">framed later, no-token</p><p>page</p></body></html>');
      const remembered = await framedLater.get("/remember");
      expect(sessionCookie(remembered)).toMatch(/^fw_session=/);
      expect(await remembered.text()).toContain("framed later");
      const missing = await framedLater.get("/missing");
      expect(missing.status).toBe(404);
      expect(await missing.text()).toContain('<p id="later">framed later, no-token</p><main class="fw-problem" data-status="404">');
      const connect = await rawRequest(framedLater.port, "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n");
      expect(connect).toMatch(/^HTTP\/1\.1 501 /);
      expect(connect).toContain("framed later");
      const upgrade = await rawRequest(framedLater.port, "GET /socket HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n");
      expect(upgrade).toMatch(/^HTTP\/1\.1 403 /);
      expect(upgrade).toContain("framed later");
      for (const path of ["/", "/missing"]) {
        const refused = await rejecting.get(path);
        expect(refused.status).toBe(500);
        expect(await refused.text()).toBe("500 Internal Server Error\n");
      }
      expect(rejecting.err.join("\n")).toContain("the users store is down");
    } finally {
      await framedLater.close();
      await rejecting.close();
    }
  });
});

describe("2.9 Session cookie", () => {
  it("is written after dispatch when something changed, and not when a page only reads", async () => {
    const login = await app.get("/login-as/ada");
    const cookie = sessionCookie(login);
    expect(cookie).toMatch(/^fw_session=/);
    expect(login.headers.get("set-cookie")).toMatch(/; Path=\/; HttpOnly; SameSite=Lax$/);
    const read = await app.get("/read-only", { headers: { cookie: cookie as string } });
    expect(await read.text()).toBe("user=ada");
    expect(read.headers.get("set-cookie")).toBeNull();
  });

  it("a flash is shown once, on the next request only", async () => {
    const first = await visit("/form");
    const token = csrfFrom(first.html);
    const posted = await app.post("/form", { _csrf: token, x: "<b>" }, { headers: { cookie: first.cookie as string } });
    expect(posted.status).toBe(303);
    expect(posted.headers.get("location")).toBe("/form");
    const cookie = sessionCookie(posted) as string;
    const shown = await visit("/form", cookie);
    expect(shown.html).toContain('<p id="flash">saved &lt;b&gt;</p>');
    const again = await visit("/form", shown.cookie);
    expect(again.html).toContain('<p id="flash"></p>');
  });

  it.each([
    // The signature's last base64url character carries padding bits: change one in the middle.
    ["tampered", (c: string) => c.replace(/\.(.{10})(.)/, (_, head: string, ch: string) => `.${head}${ch === "A" ? "B" : "A"}`)],
    ["truncated", (c: string) => c.slice(0, c.length - 10)],
    ["garbage", () => "fw_session=%%%garbage"],
    ["duplicated", (c: string) => `${c}; ${c}`],
  ])("a %s cookie reads as an empty session, never an error", async (_, mangle) => {
    const cookie = sessionCookie(await app.get("/login-as/bob")) as string;
    const response = await app.get("/read-only", { headers: { cookie: mangle(cookie) } });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("user=none");
  });

  it("a session emptied by the handler expires the cookie", async () => {
    const cookie = sessionCookie(await app.get("/login-as/cy")) as string;
    const out = await app.get("/logout", { headers: { cookie } });
    expect(out.headers.get("set-cookie")).toMatch(/^fw_session=; .*Max-Age=0$/);
  });

  it("a session whose entries alone exceed 4096 bytes: the handler's answer stands, the session is not saved, the log says why", async () => {
    const cookie = sessionCookie(await app.get("/login-as/big")) as string;
    const response = await app.get("/big-session", { headers: { cookie } });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("big");
    // The browser keeps the session it had: nothing changed but the refused entry.
    expect(response.headers.get("set-cookie")).toBeNull();
    expect(app.err.join("\n")).toMatch(/GET \/big-session \(route \/big-session\): the session was not saved: Error: The session cookie would be \d+ bytes, over the 4096/);
    expect(await (await app.get("/read-only", { headers: { cookie } })).text()).toBe("user=big");
  });

  it("a flash that would overflow the cookie is dropped, not a 500 after the handler's work: entries and smaller flash stay", async () => {
    const response = await app.get("/big-flash");
    expect(response.status).toBe(303);
    const cookie = sessionCookie(response) as string;
    expect(cookie.length).toBeLessThan(4096);
    const next = await visit("/form", cookie);
    expect(next.html).toContain('<p id="flash">short</p>');
    expect(await (await app.get("/read-only", { headers: { cookie } })).text()).toBe("user=flo");
  });

  it("two flash values that only overflow together: the largest is dropped, the other kept", async () => {
    const response = await app.get("/huge-flash");
    expect(response.status).toBe(303);
    const cookie = sessionCookie(response) as string;
    expect(cookie.length).toBeLessThan(4096);
    const payload = JSON.parse(Buffer.from(cookie.slice("fw_session=".length).split(".")[0] as string, "base64url").toString()) as { f: Record<string, string> };
    expect(Object.keys(payload.f)).toEqual(["a"]);
  });

  it("a flash delivered on an error page is dropped from the cookie: it is not shown a second time", async () => {
    const first = await visit("/form");
    const token = csrfFrom(first.html);
    const posted = await app.post("/form", { _csrf: token, x: "once" }, { headers: { cookie: first.cookie as string } });
    const withFlash = sessionCookie(posted) as string;
    const error = await visit("/not-found", withFlash);
    expect(error.response.status).toBe(404);
    expect(error.html).toContain('<p id="flash">saved once</p>');
    expect(error.cookie).not.toBe(withFlash);
    const next = await visit("/form", error.cookie);
    expect(next.html).toContain('<p id="flash"></p>');
    // Only the flash was dropped: the session's CSRF token is the same.
    expect(csrfFrom(next.html)).toBe(token);
  });
});

describe("5.8 CSRF", () => {
  async function withToken(): Promise<{ cookie: string; token: string }> {
    const page = await visit("/form");
    return { cookie: page.cookie as string, token: csrfFrom(page.html) };
  }

  it("mints one token per session after a route matched, and keeps it", async () => {
    const { cookie, token } = await withToken();
    const again = await visit("/form", cookie);
    expect(csrfFrom(again.html)).toBe(token);
    expect(again.response.headers.get("set-cookie")).toBeNull();
  });

  it.each(["POST", "PUT", "PATCH", "DELETE"])("%s without the token → 403; with it → served", async (method) => {
    const { cookie, token } = await withToken();
    const override: Record<string, string> = method === "POST" ? {} : { _method: method };
    const refused = await app.post("/echo", { ...override, x: "1" }, { headers: { cookie } });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain("CSRF");
    const served = await app.post("/echo", { ...override, _csrf: token, x: "1" }, { headers: { cookie } });
    expect(served.status).toBe(200);
    expect(await served.text()).toBe(`${method} 1`);
  });

  it("a wrong token, a duplicated token, a token from another session → 403", async () => {
    const mine = await withToken();
    const theirs = await withToken();
    for (const body of [
      `_csrf=wrong&x=1`,
      `_csrf=${mine.token}&_csrf=${mine.token}`,
      `_csrf=${theirs.token}`,
    ]) {
      expect((await app.post("/echo", body, { headers: { cookie: mine.cookie } })).status, body).toBe(403);
    }
  });

  it("only the form field counts: a token in the query or a header → 403", async () => {
    const { cookie, token } = await withToken();
    expect((await app.post(`/echo?_csrf=${token}`, { x: "1" }, { headers: { cookie } })).status).toBe(403);
    expect((await app.post("/echo", { x: "1" }, { headers: { cookie, "x-csrf-token": token } })).status).toBe(403);
  });

  it("a non-form body on a browser route → 403 (the token cannot be in it)", async () => {
    const { cookie, token } = await withToken();
    const response = await fetch(app.url + "/echo", { method: "POST", headers: { cookie, "content-type": "application/json" }, body: JSON.stringify({ _csrf: token }) });
    expect(response.status).toBe(403);
  });

  it("GET, HEAD and OPTIONS are never checked; API routes are exempt", async () => {
    expect((await app.get("/read-only")).status).toBe(200);
    expect((await fetch(app.url + "/read-only", { method: "HEAD" })).status).toBe(200);
    // OPTIONS with a form body and no token, from a session that holds one: served, not 403.
    const { cookie } = await withToken();
    for (const headers of [{ cookie }, {}] as Record<string, string>[]) {
      const options = await fetch(app.url + "/preflight", { method: "OPTIONS", headers: { ...headers, "content-type": "application/x-www-form-urlencoded" }, body: "x=1" });
      expect(options.status).toBe(200);
      expect(await options.text()).toBe("OPTIONS token");
    }
    const api = await fetch(app.url + "/api/items", { method: "POST", body: "made" });
    expect(api.status).toBe(201);
    expect(await api.text()).toBe("made");
  });
});

describe("_method override", () => {
  it("is read only from a POST's form body, and only to PUT, PATCH or DELETE", async () => {
    const page = await visit("/form");
    const token = csrfFrom(page.html);
    const cookie = page.cookie as string;
    expect((await app.post("/echo", { _method: "GET", _csrf: token }, { headers: { cookie } })).status).toBe(400);
    expect((await app.post("/echo", { _method: "POST", _csrf: token }, { headers: { cookie } })).status).toBe(400);
    expect((await app.post("/echo", "_method=PUT&_method=DELETE", { headers: { cookie } })).status).toBe(400);
    expect(await (await app.post("/echo", { _method: "delete", _csrf: token, x: "2" }, { headers: { cookie } })).text()).toBe("DELETE 2");
    // On GET it is never read: the query's _method changes nothing.
    expect((await app.get("/read-only?_method=DELETE")).status).toBe(200);
    // A query _method on a POST is not read either.
    expect(await (await app.post("/echo?_method=PUT", { _csrf: token, x: "3" }, { headers: { cookie } })).text()).toBe("POST 3");
  });

  it("asking for a method the path does not accept → 405", async () => {
    const page = await visit("/form");
    const response = await app.post("/form", { _method: "PATCH", _csrf: csrfFrom(page.html) }, { headers: { cookie: page.cookie as string } });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET, POST, HEAD");
  });
});

describe("_method never reaches an API route (API routes skip CSRF)", () => {
  it.each(["PUT", "PATCH", "DELETE"])("a cross-site form POSTing _method=%s to an API path is answered as a plain POST", async (method) => {
    const response = await app.post("/api/things", { _method: method });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("POST POST");
  });

  it("on an API path with no POST route, the override is ignored too: 405 for the POST, not the DELETE handler", async () => {
    const response = await app.post("/api/only-delete", { _method: "DELETE" });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("DELETE");
    expect(await response.text()).not.toContain("DELETE reached");
  });

  it.each([
    ["_method=GET", "_method=GET&x=1"],
    ["_method=POST", "_method=POST&x=1"],
    ["_method twice", "_method=PUT&_method=DELETE&x=1"],
    ["a _method of nonsense", "_method=%00TRACE&x=1"],
  ])("on an API route the field is nothing (spec 2.6.4): a POST with %s is served as the POST it is", async (_, body) => {
    const response = await app.post("/api/things", body);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("POST POST");
  });

  it("on an API-only path with no POST route, a malformed _method is nothing too: 405 for the POST", async () => {
    for (const body of ["_method=GET", "_method=PUT&_method=DELETE"]) {
      const response = await app.post("/api/only-delete", body);
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe("DELETE");
    }
  });

  it("the API's own DELETE is still reached by a DELETE request", async () => {
    expect(await (await fetch(app.url + "/api/things", { method: "DELETE" })).text()).toBe("DELETE reached");
  });
});

describe("2.6 / 5.7 API routes", () => {
  it("read no cookie and write none; the Cookie header stays among the headers as sent", async () => {
    const cookie = sessionCookie(await app.get("/login-as/dee")) as string;
    const response = await app.get("/api/whoami", { headers: { cookie } });
    expect(await response.text()).toBe(`cookie header: ${cookie}`);
    expect(response.headers.get("set-cookie")).toBeNull();
  });

  it("a page given the API kind by copying is reached as nobody", async () => {
    const cookie = sessionCookie(await app.get("/login-as/eve")) as string;
    const response = await app.get("/copied", { headers: { cookie } });
    expect(await response.text()).toBe("user=nobody");
    expect(response.headers.get("set-cookie")).toBeNull();
  });
});

describe("8 Body size", () => {
  it("a Content-Length over the cap → 413 at once, without waiting for the body", async () => {
    const answer = await rawRequest(
      app.port,
      "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 5000\r\n\r\n",
      3000,
    );
    expect(answer).toMatch(/^HTTP\/1.1 413 Payload Too Large/);
    expect(answer.toLowerCase()).toContain("connection: close");
  });

  it("a chunked body over the cap → 413 and buffering stops", async () => {
    const chunk = "x".repeat(600);
    const hex = chunk.length.toString(16);
    const answer = await rawRequest(
      app.port,
      `POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n${hex}\r\n${chunk}\r\n${hex}\r\n${chunk}\r\n`,
      3000,
    );
    expect(answer).toMatch(/^HTTP\/1.1 413 Payload Too Large/);
  });

  it("a body within the cap is read whole", async () => {
    const api = await fetch(app.url + "/api/items", { method: "POST", body: "y".repeat(999) });
    expect(await api.text()).toHaveLength(999);
  });

  it("a form with malformed percent-encoding → 400", async () => {
    expect((await app.post("/echo", "x=%E0%A4%A")).status).toBe(400);
  });

  it("a form with more than 1000 fields → 400", async () => {
    const big = await serve({ routes: table, layout });
    try {
      const body = Array.from({ length: 1001 }, (_, i) => `f${i}=1`).join("&");
      expect((await big.post("/echo", body)).status).toBe(400);
    } finally {
      await big.close();
    }
  });
});

describe("7 Failures", () => {
  it.each([
    ["/not-found", 404, "Not Found"],
    ["/forbidden", 403, "Forbidden"],
    ["/bad", 400, "Bad Request"],
  ])("%s → %i problem page with title, status, detail and instance, framed by the layout", async (path, code, title) => {
    const response = await app.get(path);
    expect(response.status).toBe(code);
    const html = await response.text();
    expect(html).toContain(`<title>${title} | site</title>`);
    expect(html).toContain(`<h1>${code} ${title}</h1>`);
    expect(html).toContain(`<code>${path}</code>`);
  });

  it.each(["/not-found", "/forbidden", "/nowhere"])("an error page (%s) carries no CSRF token, even when the request's session holds one", async (path) => {
    const form = await visit("/form");
    expect(csrfFrom(form.html)).toBeTruthy();
    const shown = await visit("/form", form.cookie);
    expect(shown.html).toContain('<p id="layout-csrf">has-token</p>');
    const error = await visit(path, form.cookie);
    expect(error.response.status).toBeGreaterThanOrEqual(400);
    expect(error.html).toContain('<p id="layout-csrf">no-token</p>');
    expect(error.html).not.toContain(csrfFrom(form.html));
  });

  it("Accept is ignored: every Accept gets the same answer, an HTML problem page on an error (spec 2.16)", async () => {
    const accepts = [undefined, "application/json", "application/problem+json", "text/plain", "*/*", "image/png", "text/html;q=0, application/json"];
    for (const path of ["/not-found", "/teapot", "/api/whoami"]) {
      const answers = await Promise.all(
        accepts.map(async (accept) => {
          const response = await app.get(path, accept === undefined ? {} : { headers: { accept } });
          return `${response.status} ${response.headers.get("content-type")} ${response.headers.get("vary")}\n${await response.text()}`;
        }),
      );
      for (const answer of answers) expect(answer, path).toBe(answers[0]);
    }
    const error = await app.get("/not-found", { headers: { accept: "application/json" } });
    expect(error.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await error.text()).toContain("<h1>404 Not Found</h1>");
  });

  it("reflected values are escaped", async () => {
    expect(await (await app.get("/not-found")).text()).toContain("No such &lt;thing&gt;.");
  });

  it("a handler that throws → 500 with no message or stack in production; cause logged once; the server goes on", async () => {
    const response = await app.get("/throws");
    expect(response.status).toBe(500);
    const html = await response.text();
    expect(html).not.toContain("secret detail");
    expect(html).not.toContain("at ");
    expect(app.err.filter((line) => line.includes("secret detail 7f3a"))).toHaveLength(1);
    expect((await app.get("/read-only")).status).toBe(200);
  });

  it("dev shows the cause's stack on the 500 page, escaped", async () => {
    const dev = await serve({ routes: table, layout }, { dev: true });
    try {
      const html = await (await dev.get("/throws")).text();
      expect(html).toContain("Error: secret detail 7f3a");
      expect(html).toMatch(/<pre class="fw-problem-trace" style="white-space: pre-wrap; overflow-wrap: anywhere[^"]*">/);
    } finally {
      await dev.close();
    }
  });
});

describe("4.6 /fw/health", () => {
  it("answers ok, asked before the table, reading and writing no cookie", async () => {
    const catchAll = await serve({ routes: RouteTable.of(Route.get("/*all", () => Ok("app"))) });
    try {
      const response = await catchAll.get("/fw/health", { headers: { cookie: "fw_session=garbage" } });
      expect(response.status).toBe(200);
      expect(await response.text()).toBe("ok");
      expect(response.headers.get("set-cookie")).toBeNull();
      expect(await (await catchAll.get("/fw/other")).text()).toBe("app");
    } finally {
      await catchAll.close();
    }
  });
});

describe("query", () => {
  it("is parsed per field; a malformed encoding → 400", async () => {
    expect(await (await app.get("/query?q=a%20b&q=c")).text()).toBe("q=a b");
    expect((await app.get("/query?q=%ZZ")).status).toBe(400);
  });
});

describe("API routes", () => {
  const whoAmI = Route.api({ method: "GET", path: "/me/:id", handler: (request) => Ok(`id ${request.params.id + 1}, q=${request.query.get("q") ?? ""}`), params: { id: FromPath.int } });
  const page = Route.api({ method: "GET", path: "/page", handler: () => Ok(<p>from the API</p>) });
  // A guard wraps the route's handler, as the auth module's guards do: it must still run.
  const guarded = { ...Route.api({ method: "GET", path: "/guarded", handler: () => Ok("inside") }), handler: () => status(401, "refused by the guard") };
  const adapted = Route.api({ method: "GET", path: "/wrapped", handler: (request) => Ok(`adapted, ${request.path}`) });
  const wrapped = { ...adapted, handler: (request: Request) => adapted.handler(request) };
  let api: Served;
  beforeAll(async () => {
    api = await serve({ routes: RouteTable.of(whoAmI, page, guarded, wrapped), layout });
  });
  afterAll(() => api.close());

  it("get decoded parameters and the query; a malformed query → 400 before the handler runs", async () => {
    expect(await (await api.get("/me/41?q=a%20b")).text()).toBe("id 42, q=a b");
    expect(await (await api.get("/me/41")).text()).toBe("id 42, q=");
    expect((await api.get("/me/41?q=%ZZ")).status).toBe(400);
    expect((await api.get("/me/x")).status).toBe(400);
  });

  it("answer a page framed by the layout, which sees no CSRF token", async () => {
    const html = await (await api.get("/page")).text();
    expect(html).toContain("<p>from the API</p>");
    expect(html).toContain('<p id="layout-csrf">no-token</p>');
  });

  it("whose handler a guard replaced or wrapped run the guard's handler", async () => {
    const refused = await api.get("/guarded");
    expect(refused.status).toBe(401);
    expect(await refused.text()).toBe("refused by the guard");
    expect(await (await api.get("/wrapped")).text()).toBe("adapted, /wrapped");
  });
});

describe("client address", () => {
  it("is the socket's peer; X-Forwarded-For counts only behind a proxy the app trusts", async () => {
    const routes = RouteTable.of(Route.get("/who", (request) => Ok(request.clientAddress ?? "none")));
    const direct = await serve({ routes });
    const proxied = await serve({ routes, trustProxy: true });
    try {
      const spoof = { headers: { "x-forwarded-for": "203.0.113.9, 10.0.0.1" } };
      expect(await (await direct.get("/who", spoof)).text()).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
      expect(await (await proxied.get("/who", spoof)).text()).toBe("203.0.113.9");
      expect(await (await proxied.get("/who")).text()).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
    } finally {
      await direct.close();
      await proxied.close();
    }
  });

  it("stays readable on a Request kept past its connection: read the first time after the socket closed", async () => {
    const kept: Request[] = [];
    const routes = RouteTable.of(
      Route.get("/keep", (request) => {
        kept.push(request);
        return Ok("kept");
      }),
    );
    const served = await serve({ routes });
    try {
      // With its session cookie sent back, the handler gets the Request dispatch built, whose address
      // waits to be asked for (a first visit's copy, with a new CSRF token, reads it at once).
      const cookie = sessionCookie(await served.get("/keep"));
      // Connection: close: the server ends the socket after the answer; rawRequest resolves on its end.
      const answer = await rawRequest(served.port, `GET /keep HTTP/1.1\r\nHost: x\r\nCookie: ${cookie}\r\nConnection: close\r\n\r\n`);
      expect(answer).toMatch(/^HTTP\/1\.1 200 /);
      expect(answer).not.toMatch(/set-cookie/i);
      await new Promise((resolve) => setTimeout(resolve, 50)); // the server's side of the socket closes too
      expect(kept).toHaveLength(2);
      expect(kept[1]?.clientAddress).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
    } finally {
      await served.close();
    }
  });

  // dispatch reads these from the connection only when a browser route asks (an API route never does).
  it("secure follows X-Forwarded-Proto only behind a proxy the app trusts, and so does the cookie's Secure", async () => {
    const routes = RouteTable.of(Route.get("/secure", (request) => Ok(String(request.secure))));
    const direct = await serve({ routes });
    const proxied = await serve({ routes, trustProxy: true });
    try {
      const https = { headers: { "x-forwarded-proto": "https" } };
      const answers = {
        direct: await direct.get("/secure", https),
        proxied: await proxied.get("/secure", https),
        proxiedPlain: await proxied.get("/secure"),
      };
      expect(await answers.direct.text()).toBe("false");
      expect(await answers.proxied.text()).toBe("true");
      expect(await answers.proxiedPlain.text()).toBe("false");
      // A first visit: the session cookie carrying the new CSRF token is set on each.
      expect(answers.direct.headers.get("set-cookie")).not.toMatch(/; Secure/);
      expect(answers.proxied.headers.get("set-cookie")).toMatch(/; Secure/);
      expect(answers.proxiedPlain.headers.get("set-cookie")).not.toMatch(/; Secure/);
    } finally {
      await direct.close();
      await proxied.close();
    }
  });

  it("a secure request's session cookie is __Host-fw_session, and only that name is read there; a plain request reads fw_session only", async () => {
    const routes = RouteTable.of(
      Route.get("/login-as/:name", (request) => Redirect("/who").withSession(request.session.set("user", request.params["name"] ?? ""))),
      Route.get("/who", (request) => Ok(`user=${request.session.get("user") ?? "none"}`)),
    );
    const proxied = await serve({ routes, trustProxy: true });
    try {
      const https = { "x-forwarded-proto": "https" };
      const login = await proxied.get("/login-as/hana", { headers: https });
      const set = login.headers.get("set-cookie") as string;
      expect(set).toMatch(/^__Host-fw_session=[^;]+; Path=\/; HttpOnly; SameSite=Lax; Secure$/);
      const secureCookie = set.split(";")[0] as string;
      expect(await (await proxied.get("/who", { headers: { ...https, cookie: secureCookie } })).text()).toBe("user=hana");
      // The same value under the plain name is not read on a secure request (a plain-HTTP page could plant that one)…
      const planted = secureCookie.replace(/^__Host-/, "");
      expect(await (await proxied.get("/who", { headers: { ...https, cookie: planted } })).text()).toBe("user=none");
      // …and the prefixed one is not read on a plain request.
      expect(await (await proxied.get("/who", { headers: { cookie: secureCookie } })).text()).toBe("user=none");
      expect(await (await proxied.get("/who", { headers: { cookie: planted } })).text()).toBe("user=hana");
    } finally {
      await proxied.close();
    }
  });
});
