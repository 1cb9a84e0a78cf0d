// Issue 40 item 3: the stored-name sanitiser (property tests: any string gives a safe name) and
// the refusals a multipart part's names get.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FALLBACK_FILE_NAME, fieldNameRefusal, fileNameRefusal, MAX_FILE_NAME_BYTES, sanitizeFileName } from "../../runtime/files/file-name.js";

/** Strings rich in what goes wrong in names: separators, dots, controls, bidi and zero-width characters, long runs. */
const nasty = fc.oneof(
  fc.string({ unit: "binary", maxLength: 300 }),
  fc.array(fc.constantFrom("a", "é", "日本", "😀", ".", "..", "/", "\\", "\0", "\n", "\u007f", "\u0085", " ", "\u202e", "\u2066", "\u200b", "\u200f", "\ufeff", ".pdf", "x".repeat(100)), { maxLength: 20 }).map((parts) => parts.join("")),
);

const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200b-\u200f\u061c\u2028\u2029\ufeff/\\]/u;

describe("sanitizeFileName: any string gives a name safe to store and show", () => {
  it("never a separator, control, bidi or invisible character; never empty; at most 255 UTF-8 bytes; never starting or ending with a dot or space", () => {
    fc.assert(
      fc.property(nasty, (name) => {
        const safe = sanitizeFileName(name);
        expect(safe).not.toMatch(UNSAFE);
        expect(safe.length).toBeGreaterThan(0);
        expect(Buffer.byteLength(safe)).toBeLessThanOrEqual(MAX_FILE_NAME_BYTES);
        expect(safe).not.toMatch(/^[\s.]|[\s.]$/u);
        // Whole characters only: no lone surrogate from a cut emoji.
        expect(safe).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
      }),
      { numRuns: 2000 },
    );
  });

  it("is idempotent, and leaves a plain name as it is", () => {
    fc.assert(
      fc.property(nasty, (name) => {
        expect(sanitizeFileName(sanitizeFileName(name))).toBe(sanitizeFileName(name));
      }),
      { numRuns: 1000 },
    );
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_-]{0,40}\.[a-z]{1,4}$/), (name) => {
        expect(sanitizeFileName(name)).toBe(name);
      }),
    );
  });

  it("keeps the last segment of a path, drops what hides or reverses a name, keeps the extension when cutting", () => {
    expect(sanitizeFileName("../../etc/passwd")).toBe("passwd");
    expect(sanitizeFileName("C:\\Users\\me\\report.pdf")).toBe("report.pdf");
    expect(sanitizeFileName("invoice\u202Efdp.exe")).toBe("invoicefdp.exe");
    expect(sanitizeFileName("a\u0000b\nc.txt")).toBe("abc.txt");
    expect(sanitizeFileName(".env")).toBe("env");
    expect(sanitizeFileName("...")).toBe(FALLBACK_FILE_NAME);
    expect(sanitizeFileName("")).toBe(FALLBACK_FILE_NAME);
    expect(sanitizeFileName("\u200b\u200f")).toBe(FALLBACK_FILE_NAME);
    const long = sanitizeFileName(`${"é".repeat(300)}.jpeg`);
    expect(long.endsWith(".jpeg")).toBe(true);
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(255);
    expect(sanitizeFileName("Cafe\u0301.txt")).toBe("Café.txt");
  });
});

describe("the names a multipart part may carry", () => {
  it("file names a browser sends from a real file pass; paths, controls, bidi overrides and long names are refused", () => {
    for (const ok of ["report.pdf", "Résumé (final).docx", "日本語.txt", "a".repeat(255), ".hidden"]) expect(fileNameRefusal(ok), ok).toBeUndefined();
    expect(fileNameRefusal("../x")).toMatch(/path/);
    expect(fileNameRefusal("a\\b")).toMatch(/path/);
    expect(fileNameRefusal("..")).toMatch(/no file name/);
    expect(fileNameRefusal("a\u0000")).toMatch(/control/);
    expect(fileNameRefusal("a\u2067b")).toMatch(/bidirectional/);
    expect(fileNameRefusal("é".repeat(128))).toMatch(/255 bytes/);
  });

  it("whatever fileNameRefusal lets through, sanitizeFileName keeps nearly as is (no path to strip, nothing to cut)", () => {
    fc.assert(
      fc.property(nasty, (name) => {
        if (fileNameRefusal(name) !== undefined) return;
        expect(sanitizeFileName(name)).not.toMatch(/[/\\]/u);
      }),
    );
  });

  it("field names: present, at most 100 characters, no control or bidi characters", () => {
    expect(fieldNameRefusal("title")).toBeUndefined();
    expect(fieldNameRefusal(undefined)).toMatch(/no name/);
    expect(fieldNameRefusal("")).toMatch(/no name/);
    expect(fieldNameRefusal("x".repeat(101))).toMatch(/longer than 100/);
    expect(fieldNameRefusal("a\u0000")).toMatch(/control/);
    expect(fieldNameRefusal("a\u202eb")).toMatch(/control or bidi/);
  });
});
