// A long page is encoded to bytes once before it is written (server.ts `send`, bench/FINDINGS.md
// 40), a short one is written as text: both must go out as the same UTF-8, with a Content-Length
// that counts those bytes, and HEAD must say the length GET sends.
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Ok, Route, RouteTable } from "../../runtime/index.js";
import { serve, type Served } from "../support/serve.js";

// Latin-1 beyond ASCII, a character beyond Latin-1 (a cut cell's "…"), one beyond the BMP.
const PIECE = "café … 😀 <&> ";
const SHORT = PIECE.repeat(3);
const LONG = PIECE.repeat(600); // ~8,400 UTF-16 units: past the 4,096 where send encodes

const table = RouteTable.of(
  Route.get("/short", async () => Ok(<p>{SHORT}</p>)),
  Route.get("/long", async () => Ok(<p>{LONG}</p>)),
);

let app: Served;
beforeAll(async () => {
  app = await serve({ routes: table });
});
afterAll(() => app.close());

/** Status, Content-Length and the raw bytes of an answer. */
function fetchBytes(path: string, method = "GET"): Promise<{ status: number; length: number; bytes: Buffer }> {
  return new Promise((done, fail) => {
    httpRequest(app.url + path, { method }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => done({ status: response.statusCode ?? 0, length: Number(response.headers["content-length"]), bytes: Buffer.concat(chunks) }));
      response.on("error", fail);
    })
      .on("error", fail)
      .end();
  });
}

describe("a page's bytes", () => {
  for (const [path, text] of [["/short", SHORT], ["/long", LONG]] as const) {
    it(`${path}: UTF-8, its Content-Length its byte count, HEAD the same length without a body`, async () => {
      const got = await fetchBytes(path);
      // The short page must stay on the text path, the long one cross to bytes (server.ts ENCODED_FROM).
      expect(got.bytes.toString("utf8").length < 4096, path).toBe(path === "/short");
      expect(got.status, got.bytes.toString("utf8").slice(0, 400)).toBe(200);
      expect(got.length).toBe(got.bytes.length);
      const page = got.bytes.toString("utf8");
      expect(Buffer.from(page, "utf8").equals(got.bytes)).toBe(true);
      expect(page).toContain(`<p>${text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;")}</p>`);
      const head = await fetchBytes(path, "HEAD");
      expect(head.status).toBe(200);
      expect(head.length).toBe(got.length);
      expect(head.bytes.length).toBe(0);
    });
  }
});
