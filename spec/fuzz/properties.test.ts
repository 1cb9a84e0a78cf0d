import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Fields, FromPath, METHODS, Route, Secret, Session } from "../../runtime/index.js";
import { isHttpFailure } from "../../runtime/http/failure.js";
import { splitPath } from "../../runtime/http/path.js";
import { SessionCodec } from "../../runtime/http/session-codec.js";
import { requestCookies } from "../../runtime/http/cookie.js";
import { Matcher } from "../../runtime/routing/matcher.js";
import { naiveLookup } from "../support/naive-match.js";

/**
 * Property tests (issue 9): whatever the input, these never throw anything but the sealed
 * failures (a 400 here), and agree with simple reference behaviour where one exists.
 */
const RUNS = { numRuns: 2000 };

/** Runs `f`; anything thrown must be one of the sealed failures. */
function onlySealed(f: () => unknown): void {
  try {
    f();
  } catch (thrown) {
    expect(isHttpFailure(thrown), String(thrown)).toBe(true);
  }
}

const pathChars = fc.constantFrom("a", "b", "/", "%", "2", "F", "e", ".", "%2F", "%2e", "%00", "%C0%AF", "%E2%9C%93", "%ZZ", "\u00e9", "+", " ");
const paths = fc.array(pathChars, { maxLength: 20 }).map((parts) => "/" + parts.join(""));

describe("Fuzz: the path decoder", () => {
  it("never throws but a 400, and what it yields joins back to the decoded path", () => {
    fc.assert(
      fc.property(paths, (path) => {
        onlySealed(() => {
          const segments = splitPath(path);
          for (const segment of segments) expect(segment === "." || segment === ".." || segment.includes("\0")).toBe(false);
        });
      }),
      RUNS,
    );
  });

  it("keeps an encoded slash inside its segment", () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[a-z]{1,4}$/), { minLength: 1, maxLength: 4 }), (words) => {
        const path = "/" + words.join("%2F");
        expect(splitPath(path)).toEqual([words.join("/")]);
      }),
      RUNS,
    );
  });
});

describe("Fuzz: forms and queries", () => {
  it("parsing arbitrary text never throws but a 400, and never touches Object.prototype", () => {
    const formChars = fc.constantFrom("a", "=", "&", "+", "%", "%20", "%ZZ", "%E2", "__proto__", "constructor", "=x", "é");
    fc.assert(
      fc.property(fc.array(formChars, { maxLength: 30 }).map((p) => p.join("")), (text) => {
        onlySealed(() => {
          const fields = Fields.parse(text, "form");
          for (const [name, value] of fields.entries()) {
            expect(typeof name).toBe("string");
            expect(typeof value).toBe("string");
          }
        });
        expect(({} as Record<string, unknown>)["x"]).toBeUndefined();
      }),
      RUNS,
    );
  });

  it("round-trips what URLSearchParams encodes", () => {
    fc.assert(
      // "grapheme" strings are well-formed Unicode (no lone surrogates, which no form can carry).
      fc.property(fc.array(fc.tuple(fc.string({ minLength: 1, unit: "grapheme" }), fc.string({ unit: "grapheme" }))), (pairs) => {
        const text = new URLSearchParams(pairs).toString();
        const fields = Fields.parse(text, "form");
        expect([...fields.entries()].sort()).toEqual([...new URLSearchParams(text).entries()].sort());
      }),
      RUNS,
    );
  });
});

describe("Fuzz: the session cookie codec", () => {
  const secret = new Secret("k".repeat(32));
  const codec = new SessionCodec([secret], 24 * 60 * 60 * 1000);
  const now = Date.UTC(2026, 10, 22);

  it("decoding any cookie text never throws: bad input reads as an empty session", () => {
    fc.assert(fc.property(fc.string({ maxLength: 300 }), (text) => void codec.decode(text, now)), RUNS);
  });

  it("any session of string entries round-trips, and any change to its cookie empties it", () => {
    const names = fc.stringMatching(/^[a-z][a-zA-Z0-9]{0,8}$/);
    fc.assert(
      fc.property(fc.dictionary(names, fc.string({ maxLength: 40 })), fc.nat(), (entries, at) => {
        let session = Session.empty;
        for (const [name, value] of Object.entries(entries)) session = session.set(name, value);
        const cookie = codec.encode(session, now);
        const read = codec.decode(cookie, now);
        expect(Object.fromEntries(read.entries)).toEqual(Object.fromEntries(session.entries));
        const index = at % cookie.length;
        const changed = cookie.slice(0, index) + (cookie[index] === "A" ? "B" : "A") + cookie.slice(index + 1);
        // Only the canonical signature verifies, so any changed character empties the session.
        if (changed !== cookie) expect(codec.decode(changed, now).isEmpty).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("reading the cookie header never throws", () => {
    fc.assert(fc.property(fc.string({ maxLength: 200 }), (header) => void requestCookies(header, "fw_session")), RUNS);
  });
});

describe("Fuzz: FromPath decoders", () => {
  it("int reads exactly the plain decimal safe integers", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 12 }), fc.integer().map(String), fc.double().map(String)), (text) => {
        const read = FromPath.int.read(text);
        if (read === undefined) return;
        expect(Number.isSafeInteger(read.value)).toBe(true);
        expect(String(read.value)).toBe(text === "-0" ? "0" : text);
      }),
      RUNS,
    );
  });
});

describe("Fuzz: the matcher against a naive ordered scan", () => {
  const literal = fc.constantFrom("a", "b", "new", "edit");
  const segment = fc.oneof(literal, fc.constantFrom(":x", ":y", ":id"));
  const pattern = fc.tuple(fc.array(segment, { maxLength: 3 }), fc.boolean()).map(([parts, rest]) => {
    const names = new Set<string>();
    const unique = parts.map((p, i) => (p.startsWith(":") ? `:${p.slice(1)}${i}` : p)).filter((p) => !names.has(p) && (names.add(p), true));
    return "/" + [...unique, ...(rest ? ["*rest"] : [])].join("/");
  });
  const table = fc.array(fc.tuple(fc.constantFrom(...METHODS), pattern), { maxLength: 25 });
  const path = fc.array(fc.constantFrom("a", "b", "new", "edit", "7", ""), { maxLength: 5 });

  it("answers every lookup exactly as the first match in table order", () => {
    fc.assert(
      fc.property(table, fc.array(fc.tuple(fc.constantFrom(...METHODS), path), { minLength: 1, maxLength: 10 }), (rows, lookups) => {
        const routes = rows.map(([method, text]) => Route.http({ method, path: text, handler: () => { throw new Error("not called"); } }));
        const matcher = new Matcher(routes);
        for (const [method, segments] of lookups) expect(matcher.lookup(method, segments)).toEqual(naiveLookup(routes, method, segments));
      }),
      { numRuns: 1000 },
    );
  });
});
