// Issue 40 item 2: multipart/form-data bodies, read whole before the handler runs, files spooled
// to disk as they arrive and checked by their bytes; every refusal a clear 4xx with nothing left
// in the spool folder. Against a real server (fetch and raw sockets), no mocks.
import { existsSync, readFileSync, renameSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Ok, Request, Route, RouteTable, type FileFields } from "../../runtime/index.js";
import { csrfFrom, rawRequest, serve, sessionCookie, type Served } from "../support/serve.js";
import { BOUNDARY, field, file, left, MULTIPART, multipartBody, png, removeFolder, tempFolder, type RawPart } from "./support.js";

const FILES: FileFields = {
  doc: { maxBytes: 1000, accept: ["text/plain", "text/csv", "application/pdf"] },
  photo: { maxBytes: 2000, accept: [], image: true },
  vector: { maxBytes: 2000, accept: ["image/svg+xml"] },
  pics: { maxBytes: 1000, accept: ["image/*"], maxFiles: 3 },
};

/** What a handler saw: the form, the files (and whether each spooled file is there), the problems. */
function described(request: Request): string {
  return JSON.stringify({
    form: [...request.form.entries()],
    files: request.files.all.map((f) => ({ field: f.field, name: f.name, size: f.size, type: f.type, checksum: f.checksum, there: existsSync(f.path) })),
    problems: request.files.problems,
  });
}

let spool: string;
let kept: string;
let app: Served;
let token: string;
let cookie: string;

const routes = () =>
  RouteTable.of(
    Route.get("/form", (request) => Ok(<input type="hidden" name="_csrf" value={request.csrf} />)),
    Route.post("/upload", (request) => Ok(described(request)), { files: FILES }),
    Route.post("/text-only", (request) => Ok(described(request))),
    Route.post("/keep", (request) => {
      const doc = request.files.get("doc");
      if (doc !== undefined) renameSync(doc.take(), join(kept, "kept.txt"));
      return Ok(described(request));
    }, { files: FILES }),
    Route.put("/items/1", (request) => Ok(`PUT ${described(request)}`), { files: { doc: FILES["doc"]! } }),
    Route.api({ method: "POST", path: "/api/upload", handler: (request) => Ok(JSON.stringify({ fields: [...request.fields.entries()], files: request.files.all.map((f) => f.name) })), files: FILES }),
  );

beforeAll(async () => {
  spool = tempFolder("spool-");
  kept = tempFolder("kept-");
  app = await serve({ routes: routes(), maxBodySize: 2000, uploads: { spoolDir: spool, maxRequestBytes: 2500 } });
  const page = await app.get("/form");
  token = csrfFrom(await page.text());
  cookie = sessionCookie(page) as string;
});
afterAll(async () => {
  await app.close();
  removeFolder(spool);
  removeFolder(kept);
});
afterEach(() => {
  // Whatever a test sent, nothing stays in the spool folder once it is answered.
  expect(left(spool)).toEqual([]);
});

/** POSTs hand-written parts with the session's cookie (and `_csrf` first unless told otherwise). */
function send(path: string, parts: readonly RawPart[], options: { csrf?: boolean; contentType?: string } = {}): Promise<globalThis.Response> {
  const all = options.csrf === false ? parts : [field("_csrf", token), ...parts];
  return fetch(app.url + path, { method: "POST", headers: { cookie, "content-type": options.contentType ?? MULTIPART }, body: multipartBody(all) });
}

async function seen(response: globalThis.Response): Promise<{ form: [string, string][]; files: { field: string; name: string; size: number; type: string; checksum: string; there: boolean }[]; problems: { field: string; message: string }[] }> {
  expect(response.status, await response.clone().text()).toBe(200);
  return JSON.parse(await response.text());
}

describe("a multipart form is read whole before the handler runs", () => {
  it("a browser's FormData (fetch builds the body): text fields, the CSRF token, and a file with its size, type from its bytes, name and checksum", async () => {
    const form = new FormData();
    form.set("_csrf", token);
    form.set("title", "Quarterly report");
    form.set("doc", new Blob(["a,b\n1,2\n"], { type: "text/csv" }), "report.csv");
    const got = await seen(await fetch(`${app.url}/upload`, { method: "POST", headers: { cookie }, body: form }));
    expect(got.form).toEqual([
      ["_csrf", token],
      ["title", "Quarterly report"],
    ]);
    expect(got.files).toEqual([
      { field: "doc", name: "report.csv", size: 8, type: "text/csv", checksum: createHash("sha256").update("a,b\n1,2\n").digest("hex"), there: true },
    ]);
    expect(got.problems).toEqual([]);
  });

  it("the CSRF token is read from the multipart form: a wrong one is a 403 and the files that came with it are removed", async () => {
    const response = await send("/upload", [field("_csrf", "forged"), file("doc", "a.txt", "hello")], { csrf: false });
    expect(response.status).toBe(403);
    expect(await response.text()).toContain("CSRF token does not match");
    const missing = await send("/upload", [file("doc", "a.txt", "hello")], { csrf: false });
    expect(missing.status).toBe(403);
    expect(await missing.text()).toContain("did not return its CSRF token");
  });

  it("a file part before the token is spooled, then removed when the token is wrong", async () => {
    const response = await send("/upload", [file("doc", "a.txt", "first"), field("_csrf", "wrong")], { csrf: false });
    expect(response.status).toBe(403);
  });

  it("a route that declares no file field reads its text fields from a multipart body", async () => {
    const got = await seen(await send("/text-only", [field("x", "1"), field("x", "2"), field("y", "ünïcode")]));
    expect(got.form.slice(1)).toEqual([
      ["x", "1"],
      ["x", "2"],
      ["y", "ünïcode"],
    ]);
  });

  it("a route that declares no file field answers a file part with 400 naming the field", async () => {
    const response = await send("/text-only", [field("x", "1"), file("doc", "a.txt", "hello")]);
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("This address takes no files, and the form sends one in &quot;doc&quot;.");
  });

  it("an empty file input (no file chosen: an empty filename, no bytes) is no file", async () => {
    const got = await seen(await send("/upload", [file("doc", "", "")]));
    expect(got.files).toEqual([]);
  });

  it("a handler that takes a file keeps it; the others are removed", async () => {
    const got = await seen(await send("/keep", [file("doc", "k.txt", "keep me"), file("pics", "p.png", png())]));
    expect(got.files.map((f) => f.field)).toEqual(["doc", "pics"]);
    expect(readFileSync(join(kept, "kept.txt"), "utf8")).toBe("keep me");
  });

  it("several files in one field, up to its maxFiles", async () => {
    const got = await seen(await send("/upload", [file("pics", "1.png", png()), file("pics", "2.png", png(2, 2)), file("pics", "3.png", png(3, 3))]));
    expect(got.files.map((f) => [f.name, f.type])).toEqual([
      ["1.png", "image/png"],
      ["2.png", "image/png"],
      ["3.png", "image/png"],
    ]);
  });

  it("an Edit form's _method=PUT in a multipart body reaches the PUT route with its file", async () => {
    const response = await send("/items/1", [field("_method", "PUT"), file("doc", "a.txt", "via PUT")]);
    expect(response.status).toBe(200);
    expect(await response.text()).toMatch(/^PUT .*"name":"a.txt"/);
  });

  it("an API route that declares files reads the text parts as `fields` and its files, without CSRF", async () => {
    const response = await send("/api/upload", [field("title", "t"), file("doc", "api.txt", "x")], { csrf: false });
    expect(response.status).toBe(200);
    expect(JSON.parse(await response.text())).toEqual({ fields: [["title", "t"]], files: ["api.txt"] });
  });
});

describe("the type of a file comes from its bytes", () => {
  it("HTML sent as image/png under a name ending .png is refused beside its field, and removed", async () => {
    const got = await seen(await send("/upload", [file("photo", "cat.png", "<!DOCTYPE html><script>alert(1)</script>", "image/png")]));
    expect(got.files).toEqual([]);
    expect(got.problems).toEqual([{ field: "photo", message: "must be a file of type PNG, JPEG, GIF, WebP or AVIF, and this file is an HTML document" }]);
  });

  it("a PNG sent as text/plain named .txt is a PNG", async () => {
    const got = await seen(await send("/upload", [file("photo", "notes.txt", png(), "text/plain")]));
    expect(got.files.map((f) => [f.name, f.type])).toEqual([["notes.txt", "image/png"]]);
  });

  it("a polyglot (a PNG whose bytes go on with HTML) is the PNG its first bytes say: served as one, with nosniff, it never runs", async () => {
    const got = await seen(await send("/upload", [file("photo", "poly.png", Buffer.concat([png(), Buffer.from("<html><script>alert(1)</script></html>")]), "text/html")]));
    expect(got.files.map((f) => f.type)).toEqual(["image/png"]);
  });

  it("text: valid UTF-8 without NUL is text (stored as the text type the client named, when the field takes it); a NUL byte or invalid UTF-8 is not text", async () => {
    const got = await seen(
      await send("/upload", [file("doc", "a.csv", "name,price\nTée,3\n", "text/csv")]),
    );
    expect(got.files.map((f) => f.type)).toEqual(["text/csv"]);
    const plain = await seen(await send("/upload", [file("doc", "a.txt", "hello", "application/x-whatever")]));
    expect(plain.files.map((f) => f.type)).toEqual(["text/plain"]);
    const nul = await seen(await send("/upload", [file("doc", "a.txt", "hel\u0000lo", "text/plain")]));
    expect(nul.problems).toEqual([{ field: "doc", message: "must be a file of type text, CSV or PDF, and this file is of no type fw recognises" }]);
    const latin1 = await seen(await send("/upload", [file("doc", "a.txt", Buffer.from([0x63, 0x61, 0x66, 0xe9]), "text/plain")]));
    expect(latin1.problems.map((p) => p.field)).toEqual(["doc"]);
  });

  it("HTML sent to a text field as text/plain is HTML, and the field takes text/plain only", async () => {
    const got = await seen(await send("/upload", [file("doc", "a.txt", "  <html><body>hi</body></html>", "text/plain")]));
    expect(got.problems).toEqual([{ field: "doc", message: "must be a file of type text, CSV or PDF, and this file is an HTML document" }]);
  });

  it("SVG: taken where the field names image/svg+xml, never through image/*, and never with a script", async () => {
    const clean = '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"><rect width="1" height="1"/></svg>';
    const ok = await seen(await send("/upload", [file("vector", "a.svg", clean, "image/svg+xml")]));
    expect(ok.files.map((f) => f.type)).toEqual(["image/svg+xml"]);
    const wild = await seen(await send("/upload", [file("pics", "a.svg", clean, "image/svg+xml")]));
    expect(wild.problems).toEqual([{ field: "pics", message: "must be a file of type any image type, and this file is a SVG file" }]);
    for (const active of [
      '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
      '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"></svg>',
      '<svg xmlns="http://www.w3.org/2000/svg"><a href="javascript:alert(1)"><text>x</text></a></svg>',
      '<svg xmlns="http://www.w3.org/2000/svg"><foreignObject><iframe src="x"></iframe></foreignObject></svg>',
      '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaa">]><svg xmlns="http://www.w3.org/2000/svg">&a;</svg>',
    ]) {
      const refused = await seen(await send("/upload", [file("vector", "x.svg", active, "image/svg+xml")]));
      expect(refused.problems.map((p) => p.field), active).toEqual(["vector"]);
    }
  });
});

describe("limits: a 413 naming the field and the limit, the partial file removed, the connection closed", () => {
  it("a file over its field's maxBytes", async () => {
    const response = await send("/upload", [file("doc", "big.txt", "x".repeat(1001))]);
    expect(response.status).toBe(413);
    expect(response.headers.get("connection")).toBe("close");
    expect(await response.text()).toContain("The file sent in &quot;doc&quot; is larger than its 1000-byte limit.");
  });

  it("a file of exactly maxBytes is taken", async () => {
    const got = await seen(await send("/upload", [file("doc", "full.txt", "x".repeat(1000))]));
    expect(got.files.map((f) => f.size)).toEqual([1000]);
  });

  it("the files of one request together over uploads.maxRequestBytes", async () => {
    const pic = Buffer.concat([png(), Buffer.alloc(900 - png().length)]);
    const response = await send("/upload", [file("pics", "1.png", pic), file("pics", "2.png", pic), file("pics", "3.png", pic)]);
    expect(response.status).toBe(413);
    expect(await response.text()).toContain("larger than the 2500-byte limit of one request together");
  });

  it("more files in a field than its maxFiles", async () => {
    const response = await send("/upload", [file("doc", "1.txt", "a"), file("doc", "2.txt", "b")]);
    expect(response.status).toBe(413);
    expect(await response.text()).toContain("The form sends more than 1 file in &quot;doc&quot;.");
  });

  it("text fields over maxBodySize together", async () => {
    const response = await send("/text-only", [field("a", "x".repeat(1500)), field("b", "y".repeat(600))]);
    expect(response.status).toBe(413);
    expect(await response.text()).toContain("larger than the 2000-byte limit (maxBodySize), at &quot;b&quot;");
  });

  it("a Content-Length over what the route's fields could take is refused before a byte is read", async () => {
    const head = `POST /upload HTTP/1.1\r\nHost: x\r\nCookie: ${cookie}\r\nContent-Type: ${MULTIPART}\r\nContent-Length: 100000000\r\n\r\n`;
    const answer = await rawRequest(app.port, head);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toMatch(/connection: close/i);
    expect(answer).toContain("this form may take: files of at most 1000 bytes in &quot;doc&quot;, 2000 bytes in &quot;photo&quot;, 2000 bytes in &quot;vector&quot;, 1000 bytes in &quot;pics&quot; (each of 3 files), and 2000 bytes of text fields.");
  });

  it("10,000 parts: over the body a form may send (413 before a byte is read), or, within it, over 1000 fields (400)", async () => {
    const parts = Array.from({ length: 10_000 }, (_, i) => field(`f${i}`, ""));
    const response = await fetch(`${app.url}/text-only`, { method: "POST", headers: { cookie, "content-type": MULTIPART }, body: multipartBody(parts) });
    expect(response.status).toBe(413);
    // An app with the default 1 MiB maxBodySize takes the ~1 MB body; the parser stops at field 1001.
    const roomy = await serve({ routes: routes(), uploads: { spoolDir: spool } });
    try {
      const fields = await fetch(`${roomy.url}/text-only`, { method: "POST", headers: { "content-type": MULTIPART }, body: multipartBody(parts) });
      expect(fields.status).toBe(400);
      expect(await fields.text()).toContain("more than 1000 fields");
      const files = await fetch(`${roomy.url}/upload`, { method: "POST", headers: { "content-type": MULTIPART }, body: multipartBody(parts.slice(0, 2000).map((_, i) => file("pics", `${i}.png`, ""))) });
      expect(files.status).toBe(413);
      expect(await files.text()).toContain("more than 3 files");
    } finally {
      await roomy.close();
    }
  });
});

describe("bad input: each a clear 4xx and nothing left on disk", () => {
  it("no boundary, a boundary the body does not use, a body cut short", async () => {
    const none = await send("/upload", [file("doc", "a.txt", "x")], { contentType: "multipart/form-data" });
    expect(none.status).toBe(400);
    expect(await none.text()).toContain("boundary");
    const other = await send("/upload", [file("doc", "a.txt", "x")], { contentType: "multipart/form-data; boundary=not-the-one" });
    expect(other.status).toBe(400);
    const cut = multipartBody([field("_csrf", token), file("doc", "a.txt", "abc")]).subarray(0, -30);
    const short = await fetch(`${app.url}/upload`, { method: "POST", headers: { cookie, "content-type": MULTIPART }, body: cut });
    expect(short.status).toBe(400);
    expect(await short.text()).toContain("malformed");
  });

  it("a part without a name", async () => {
    const response = await send("/upload", [{ headers: "Content-Disposition: form-data", content: "x" }]);
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("a part of the form has no name");
    const nameless = await send("/upload", [{ headers: 'Content-Disposition: form-data; filename="a.txt"', content: "x" }]);
    expect(nameless.status).toBe(400);
  });

  it("a file where the route expects a text field, and text where it expects a file", async () => {
    const fileInText = await send("/upload", [file("title", "a.txt", "x")]);
    expect(fileInText.status).toBe(400);
    // Refused partway: the rest of the body is unread, so the connection closes after the answer.
    expect(fileInText.headers.get("connection")).toBe("close");
    expect(await fileInText.text()).toContain("sends a file in &quot;title&quot;, which is not a file field here");
    const textInFile = await send("/upload", [field("doc", "just text")]);
    expect(textInFile.status).toBe(400);
    expect(await textInFile.text()).toContain("sends text in &quot;doc&quot;, which takes a file");
  });

  it("a body refused at its first part is read to its end (briefly) before the answer, so a client still sending sees the 400, not a reset", async () => {
    const body = multipartBody([field("doc", "just text"), file("pics", "a.png", "x".repeat(500))]);
    const head = `POST /api/upload HTTP/1.1\r\nHost: x\r\nContent-Type: ${MULTIPART}\r\nContent-Length: ${body.length}\r\n\r\n`;
    const { connect } = await import("node:net");
    const socket = connect(app.port, "127.0.0.1");
    await new Promise<void>((resolve) => socket.once("connect", resolve));
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    const ended = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    const failed = new Promise<string>((resolve) => socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message)));
    // The first part (text where a file goes, whole once the next boundary is seen) is refused at
    // once; the rest follows a moment later.
    const cut = body.indexOf(`--${BOUNDARY}`, BOUNDARY.length) + BOUNDARY.length + 4;
    socket.write(Buffer.concat([Buffer.from(head), body.subarray(0, cut)]));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const answeredEarly = chunks.length > 0;
    const written = await new Promise<string>((resolve) => socket.write(body.subarray(cut), (error) => resolve(error === undefined || error === null ? "written" : "failed")));
    await Promise.race([ended, failed]);
    const answer = Buffer.concat(chunks).toString("latin1");
    expect({ answeredEarly, written }).toEqual({ answeredEarly: false, written: "written" });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toMatch(/connection: close/i);
    expect(answer).toContain("sends text in &quot;doc&quot;, which takes a file");
  });

  it.each([
    ["a path with ../", "../../etc/passwd", "it is a path"],
    ["a NUL", "a\u0000b.txt", "control character"],
    ["a bidi override", "invoice\u202Etxt.exe", "bidirectional override"],
    ["1,000 characters", `${"n".repeat(996)}.txt`, "longer than 255 bytes"],
  ])("a file name with %s", async (_what, name, reason) => {
    const response = await send("/upload", [file("doc", name, "x")]);
    expect(response.status).toBe(400);
    expect(await response.text()).toContain(reason);
  });

  it("a field name of 1,000 characters, or with a bidi override", async () => {
    expect((await send("/upload", [field("n".repeat(1000), "x")])).status).toBe(400);
    expect((await send("/upload", [field("a\u202Eb", "x")])).status).toBe(400);
  });
});

describe("an upload the client abandons leaves nothing behind", () => {
  it("a connection cut halfway through a file", async () => {
    const body = multipartBody([field("_csrf", token), file("doc", "a.txt", "x".repeat(900))]);
    const head = `POST /upload HTTP/1.1\r\nHost: x\r\nCookie: ${cookie}\r\nContent-Type: ${MULTIPART}\r\nContent-Length: ${body.length}\r\n\r\n`;
    const { connect } = await import("node:net");
    const socket = connect(app.port, "127.0.0.1");
    await new Promise<void>((resolve) => socket.once("connect", resolve));
    socket.write(head);
    socket.write(body.subarray(0, body.length - 300));
    // Let the server spool what came, then cut the connection.
    await waitFor(() => left(spool).length === 1);
    socket.destroy();
    await waitFor(() => left(spool).length === 0);
    // The server goes on serving.
    expect((await app.get("/form", { headers: { cookie } })).status).toBe(200);
  });

  it("a slow upload is cut by the request timeout (408), and its partial file removed", async () => {
    const slow = await serve({ routes: routes(), requestTimeoutMs: 300, headersTimeoutMs: 300, uploads: { spoolDir: spool } });
    try {
      const body = multipartBody([field("_csrf", token), file("doc", "a.txt", "x".repeat(900))]);
      const head = `POST /upload HTTP/1.1\r\nHost: x\r\nCookie: ${cookie}\r\nContent-Type: ${MULTIPART}\r\nContent-Length: ${body.length}\r\n\r\n`;
      const answer = await rawRequest(slow.port, Buffer.concat([Buffer.from(head), body.subarray(0, body.length - 300)]), 3000);
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      await waitFor(() => left(spool).length === 0);
    } finally {
      await slow.close();
    }
  });
});

async function waitFor(condition: () => boolean, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

void BOUNDARY;

describe("a route's files declaration is checked when the route is made", () => {
  it.each([
    [{ doc: { maxBytes: 0, accept: ["text/plain"] } }, 'file field "doc": maxBytes must be a positive whole number of bytes, not 0'],
    [{ doc: { maxBytes: 1.5, accept: ["text/plain"] } }, "maxBytes must be a positive whole number"],
    [{ doc: { maxBytes: 10, accept: [] } }, 'accept names no type (give at least one, such as "application/pdf" or "image/*")'],
    [{ doc: { maxBytes: 10, accept: ["*/*"] } }, '"*/*" is no type pattern fw accepts'],
    [{ doc: { maxBytes: 10, accept: ["image/PNG"] } }, '"image/PNG" is no type pattern fw accepts (write "type/subtype" or "type/*" in lower case'],
    [{ doc: { maxBytes: 10, accept: ["pdf"] } }, '"pdf" is no type pattern'],
    [{ doc: { maxBytes: 10, accept: ["text/plain"], maxFiles: 0 } }, "maxFiles must be a positive whole number, not 0"],
  ] as [FileFields, string][])("%j", (files, message) => {
    expect(() => Route.post("/x", () => Ok(""), { files })).toThrow(`Route POST /x: ${message.startsWith("file field") ? message : ""}`);
    expect(() => Route.post("/x", () => Ok(""), { files })).toThrow(message);
  });

  it("an image field may leave accept empty: it takes the raster image types", () => {
    expect(Route.post("/x", () => Ok(""), { files: { photo: { maxBytes: 10, accept: [], image: true } } }).files).toEqual({ photo: { maxBytes: 10, accept: [], image: true } });
  });
});
