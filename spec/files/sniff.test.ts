// Issue 40 item 3: a file's type is read from its bytes; what has no magic number is text only
// when it is UTF-8 without NUL or control characters throughout.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { decide, matches } from "../../runtime/files/accept.js";
import { sniffFile } from "../../runtime/files/sniff.js";
import { png, removeFolder, tempFolder } from "./support.js";

const folder = tempFolder("sniff-");
afterAll(() => removeFolder(folder));

let n = 0;
async function sniff(content: string | Buffer): Promise<string> {
  const path = join(folder, `f${n++}`);
  writeFileSync(path, content);
  return sniffFile(path);
}

describe("sniffFile", () => {
  it("names binary formats by their magic numbers", async () => {
    expect(await sniff(png())).toBe("image/png");
    expect(await sniff(Buffer.from("ffd8ffe000104a46494600010100000100010000", "hex"))).toBe("image/jpeg");
    expect(await sniff("%PDF-1.7\n%âãÏÓ\n1 0 obj\n<<>>\nendobj\n")).toBe("application/pdf");
    expect(await sniff(Buffer.from("GIF89a\x01\x00\x01\x00\x00\x00\x00;", "latin1"))).toBe("image/gif");
  });

  it("text: empty, UTF-8 with a BOM, a character split across the 64 KiB read boundary, tabs and CRLF", async () => {
    expect(await sniff("")).toBe("text/plain");
    expect(await sniff("\ufeffname;price\r\nTée;3\r\n")).toBe("text/plain");
    expect(await sniff(`${"a".repeat(64 * 1024 - 1)}é and on\tand on`)).toBe("text/plain");
  });

  it("not text: a NUL, another control character, DEL, invalid UTF-8, a truncated character at the end", async () => {
    for (const bytes of [Buffer.from("ab\u0000c"), Buffer.from("ab\u0007c"), Buffer.from("ab\u007fc"), Buffer.from([0x61, 0xff, 0x62]), Buffer.from([0x61, 0xc3])]) {
      expect(await sniff(bytes), bytes.toString("hex")).toBe("application/octet-stream");
    }
    const late = Buffer.concat([Buffer.from("a".repeat(200_000)), Buffer.from([0])]);
    expect(await sniff(late)).toBe("application/octet-stream");
  });

  it("for a field that takes no text, only the first 64 KiB are read (enough to name what it refuses)", async () => {
    const path = join(folder, `f${n++}`);
    writeFileSync(path, Buffer.concat([Buffer.from("a".repeat(200_000)), Buffer.from([0])]));
    expect(await sniffFile(path, { wholeText: false })).toBe("text/plain");
    expect(await sniffFile(path, { wholeText: true })).toBe("application/octet-stream");
  });

  it("markup by how it starts: HTML (as browsers sniff it), SVG, XML", async () => {
    expect(await sniff("<!DOCTYPE html><p>x")).toBe("text/html");
    expect(await sniff("\n  <SCRIPT>alert(1)</SCRIPT>")).toBe("text/html");
    expect(await sniff("<!-- a comment -->")).toBe("text/html");
    expect(await sniff("<svg xmlns='http://www.w3.org/2000/svg'/>")).toBe("image/svg+xml");
    expect(await sniff('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"></svg>')).toBe("image/svg+xml");
    expect(await sniff('<?xml version="1.0"?><feed/>')).toBe("application/xml");
    expect(await sniff("a < b > c")).toBe("text/plain");
  });
});

describe("accept patterns", () => {
  it("type/* takes its subtypes, but never SVG nor HTML, which must be named", () => {
    expect(matches("image/*", "image/png")).toBe(true);
    expect(matches("image/*", "image/svg+xml")).toBe(false);
    expect(matches("image/svg+xml", "image/svg+xml")).toBe(true);
    expect(matches("text/*", "text/html")).toBe(false);
    expect(matches("text/*", "text/csv")).toBe(true);
    expect(matches("image/*", "imagex/png")).toBe(false);
  });

  it("an image field takes the raster types its accept allows, whatever else accept names", () => {
    expect(decide("image/png", "image/png", { maxBytes: 1, accept: ["image/png"], image: true })).toEqual({ ok: true, type: "image/png" });
    expect(decide("image/jpeg", "image/jpeg", { maxBytes: 1, accept: ["image/png"], image: true }).ok).toBe(false);
    expect(decide("image/svg+xml", "image/svg+xml", { maxBytes: 1, accept: ["image/svg+xml"], image: true }).ok).toBe(false);
    expect(decide("image/tiff", "image/tiff", { maxBytes: 1, accept: ["image/*"], image: true }).ok).toBe(false);
  });

  it("text is stored as the text type the client named when the field takes it, else the field's first text type", () => {
    const field = { maxBytes: 1, accept: ["application/pdf", "text/csv", "text/markdown"] };
    expect(decide("text/plain", "text/markdown; charset=utf-8", field)).toEqual({ ok: true, type: "text/markdown" });
    expect(decide("text/plain", "image/png", field)).toEqual({ ok: true, type: "text/csv" });
    expect(decide("text/plain", "text/html", field)).toEqual({ ok: true, type: "text/csv" });
    expect(decide("text/plain", "text/plain", { maxBytes: 1, accept: ["text/*"] })).toEqual({ ok: true, type: "text/plain" });
    expect(decide("text/plain", "text/plain", { maxBytes: 1, accept: ["application/pdf"] }).ok).toBe(false);
  });
});
