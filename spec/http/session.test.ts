import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { Secret, Session } from "../../runtime/index.js";
import { sessionChanged, SessionCodec } from "../../runtime/http/session-codec.js";
import { withReserved } from "../../runtime/http/session.js";
import { distModule, retainedBytes } from "../support/retained.js";

const secret = new Secret("a".repeat(32));
const other = new Secret("b".repeat(32));
const DAY = 24 * 60 * 60 * 1000;
const now = Date.UTC(2026, 10, 22);
const codec = new SessionCodec([secret], DAY);

/** The session a browser would send back on its next request. */
function roundTrip(session: Session, at = now, using = codec): Session {
  return using.decode(codec.encode(session, at), at);
}

describe("2.9 Session value", () => {
  it("keeps entries until removed, immutably", () => {
    const a = Session.empty.set("user", "42");
    const b = a.remove("user");
    expect(a.get("user")).toBe("42");
    expect(b.get("user")).toBeUndefined();
    expect(Session.empty.get("user")).toBeUndefined();
  });

  it("refuses names beginning with an underscore from outside", () => {
    expect(() => Session.empty.set("_csrf", "x")).toThrow(/reserved by fw/);
    expect(() => Session.empty.flash("_x", "x")).toThrow(/reserved/);
    expect(() => Session.empty.remove("_csrf")).toThrow(/reserved/);
  });

  it("cannot be constructed from outside, so reserved names cannot be slipped in through the constructor", () => {
    const reserved = new Map([["_csrf", "forged"]]);
    // @ts-expect-error the constructor is private: app code cannot compile `new Session(...)`.
    expect(() => new Session(reserved, new Map(), new Map(), undefined)).toThrow(/cannot be constructed/);
    // Nor from JavaScript, past the type checker, with any first argument.
    expect(() => Reflect.construct(Session, [Symbol("fw.Session"), reserved, new Map(), new Map(), undefined])).toThrow(/cannot be constructed/);
    // fw's own paths still make sessions: the codec reads one back, reserved entries included.
    expect(roundTrip(withReserved(Session.empty, "_csrf", "t")).get("_csrf")).toBe("t");
  });

  it("lists only the application's own names", () => {
    expect(withReserved(Session.empty.set("a", "1"), "_csrf", "t").names).toEqual(["a"]);
  });
});

describe("2.9 Flash lifecycle", () => {
  it("a flash written now is readable on the next request only", () => {
    const writing = Session.empty.flash("notice", "Saved");
    expect(writing.flashed("notice")).toBeUndefined(); // not on the request that wrote it
    const next = roundTrip(writing);
    expect(next.flashed("notice")).toBe("Saved");
    // The request after: the delivered flash is dropped from what goes out.
    const after = roundTrip(next);
    expect(after.flashed("notice")).toBeUndefined();
  });

  it("entries survive round trips while flashes come and go", () => {
    const next = roundTrip(Session.empty.set("user", "7").flash("notice", "hi"));
    expect(next.get("user")).toBe("7");
    expect(roundTrip(next).get("user")).toBe("7");
  });
});

describe("2.9 Signed cookie codec", () => {
  const cookie = codec.encode(Session.empty.set("user", "7"), now);

  it("is signed with HMAC-SHA256: payload.signature in base64url", () => {
    expect(cookie).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
  });

  it("reads a tampered, truncated or garbage cookie as an empty session", () => {
    const [payload, signature] = cookie.split(".") as [string, string];
    const forged = Buffer.from(JSON.stringify({ i: now / 1000, e: { user: "1" }, f: {} })).toString("base64url");
    for (const bad of [
      `${forged}.${signature}`,
      `${payload}.${signature.slice(0, -2)}`,
      cookie.slice(0, 10),
      `${payload}`,
      `.${signature}`,
      `${payload}.${signature}.x`,
      "%%%not-base64%%%",
      "",
      `${payload}X.${signature}`,
    ]) {
      expect(codec.decode(bad, now).isEmpty, bad).toBe(true);
    }
  });

  it("reads a validly signed payload of the wrong shape as empty", () => {
    const signed = (data: unknown): string => {
      const body = Buffer.from(JSON.stringify(data)).toString("base64url");
      return `${body}.${createHmac("sha256", "a".repeat(32)).update(body).digest("base64url")}`;
    };
    const i = now / 1000;
    expect(codec.decode(signed({ i, e: { user: "1" }, f: {} }), now).get("user")).toBe("1"); // the control
    for (const data of [1, null, [], { e: {}, f: {} }, { i: "x", e: {}, f: {} }, { i, e: { n: 1 }, f: {} }, { i, e: [], f: {} }, { i, e: {}, f: null }]) {
      expect(codec.decode(signed(data), now).isEmpty, JSON.stringify(data)).toBe(true);
    }
  });

  it("reads a `__proto__` key in a signed payload as plain data, polluting nothing", () => {
    const body = Buffer.from(`{"i":${now / 1000},"e":{"__proto__":"p","polluted":"x"},"f":{}}`).toString("base64url");
    const value = `${body}.${createHmac("sha256", "a".repeat(32)).update(body).digest("base64url")}`;
    const read = codec.decode(value, now);
    expect(read.get("__proto__")).toBe("p");
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  it("a cookie signed with another secret reads as empty; an older secret still verifies during rotation", () => {
    const foreign = new SessionCodec([other], DAY);
    expect(codec.decode(foreign.encode(Session.empty.set("u", "1"), now), now).isEmpty).toBe(true);
    const rotated = new SessionCodec([other, secret], DAY);
    expect(rotated.decode(cookie, now).get("user")).toBe("7");
  });

  it("a session older than the maximum age reads as empty", () => {
    expect(codec.decode(cookie, now + DAY - 1000).get("user")).toBe("7");
    expect(codec.decode(cookie, now + DAY + 1000).isEmpty).toBe(true);
  });

  it("keeps the first issue time across rewrites, so the maximum age is absolute", () => {
    const read = codec.decode(cookie, now + 1000);
    expect(read.issuedAt).toBe(now);
    const rewritten = codec.encode(read.set("more", "1"), now + DAY / 2);
    expect(codec.decode(rewritten, now + DAY + 1000).isEmpty).toBe(true);
  });

  it("cleared() starts a new session with a new issue time", () => {
    const read = codec.decode(cookie, now);
    const renewed = codec.decode(codec.encode(read.cleared().set("user", "8"), now + DAY / 2), now + DAY + 1000);
    expect(renewed.get("user")).toBe("8");
  });
});

describe("2.9 Written only when changed", () => {
  const arrived = codec.decode(codec.encode(Session.empty.set("a", "1"), now), now);

  it("a session only read is unchanged", () => {
    expect(sessionChanged(arrived, arrived)).toBe(false);
    expect(sessionChanged(Session.empty, Session.empty)).toBe(false);
  });

  it("a new entry, a removal, a pending flash, a delivered flash or a clear is a change", () => {
    expect(sessionChanged(arrived, arrived.set("b", "2"))).toBe(true);
    expect(sessionChanged(arrived, arrived.remove("a"))).toBe(true);
    expect(sessionChanged(arrived, arrived.flash("n", "x"))).toBe(true);
    expect(sessionChanged(arrived, arrived.cleared().set("a", "1"))).toBe(true);
    const withFlash = codec.decode(codec.encode(Session.empty.flash("n", "x"), now), now);
    expect(sessionChanged(withFlash, withFlash)).toBe(true);
  });

  it("setting an entry to the value it had is no change", () => {
    expect(sessionChanged(arrived, arrived.set("a", "1"))).toBe(false);
  });
});

describe("2.9 Signature spelling", () => {
  it("only the canonical base64url spelling of a signature verifies", () => {
    const cookie = codec.encode(Session.empty.set("user", "7"), now);
    const [payload, signature] = cookie.split(".") as [string, string];
    // The 43rd character of a 32-byte base64url value carries 2 padding bits: flip them.
    const last = signature.charCodeAt(42);
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const index = alphabet.indexOf(String.fromCharCode(last));
    const sibling = alphabet[index ^ 1] as string;
    const respelled = `${payload}.${signature.slice(0, 42)}${sibling}`;
    expect(Buffer.from(respelled.split(".")[1] as string, "base64url")).toEqual(Buffer.from(signature, "base64url"));
    expect(codec.decode(cookie, now).get("user")).toBe("7");
    expect(codec.decode(respelled, now).isEmpty).toBe(true);
  });
});

describe("2.9 Verified cookies are remembered", () => {
  it("a repeated cookie reads the same session; its age still counts; a forged one is never remembered", () => {
    const fresh = new SessionCodec([secret], DAY);
    const cookie = fresh.encode(Session.empty.set("user", "9").flash("n", "x"), now);
    const first = fresh.decode(cookie, now);
    const second = fresh.decode(cookie, now + 500); // remembered on its second visit (see the admission test)
    expect(second).not.toBe(first);
    expect(fresh.decode(cookie, now + 1000)).toBe(second); // the same immutable session, not decoded again
    expect(second.flashed("n")).toBe("x");
    expect(fresh.decode(cookie, now + DAY + 1000).isEmpty).toBe(true); // expiry still applies on a hit
    const forged = cookie.replace(/\.(.{10})(.)/, (_, head: string, ch: string) => `.${head}${ch === "A" ? "B" : "A"}`);
    expect(fresh.decode(forged, now).isEmpty).toBe(true);
    expect(fresh.decode(forged, now).isEmpty).toBe(true);
  });

  it("a remembered value's signature on another payload reads as empty, though both share the fingerprint it is found by", () => {
    const remembering = new SessionCodec([secret], DAY);
    const cookie = remembering.encode(Session.empty.set("user", "1"), now);
    const [payload, signature] = cookie.split(".") as [string, string];
    remembering.decode(cookie, now);
    expect(remembering.decode(cookie, now)).toBe(remembering.decode(cookie, now)); // remembered
    const otherPayload = Buffer.from(JSON.stringify({ i: Math.floor(now / 1000), e: { user: "admin" }, f: {} })).toString("base64url");
    expect(otherPayload).not.toBe(payload);
    expect(remembering.decode(`${otherPayload}.${signature}`, now).isEmpty).toBe(true);
    expect(remembering.decode(cookie, now).get("user")).toBe("1");
  });

  it("two verified values whose signatures share their first four characters both read right, in turn", () => {
    const sharing = new SessionCodec([secret], DAY);
    // Sign sessions until two signatures begin alike (24 bits: a pair is due after a few thousand).
    const byStart = new Map<string, string>();
    let pair: [string, string] | undefined;
    for (let i = 0; pair === undefined && i < 100_000; i++) {
      const cookie = sharing.encode(Session.empty.set("u", String(i)), now);
      const start = (cookie.split(".")[1] as string).slice(0, 4);
      const earlier = byStart.get(start);
      if (earlier === undefined) byStart.set(start, cookie);
      else pair = [earlier, cookie];
    }
    if (pair === undefined) throw new Error("no two signatures shared a start in 100,000");
    const [a, b] = pair;
    const users = [a, b].map((cookie) => (JSON.parse(Buffer.from(cookie.split(".")[0] as string, "base64url").toString()) as { e: { u: string } }).e.u);
    for (let round = 0; round < 4; round++) {
      for (const [k, cookie] of [a, a, b, b, a, b].entries()) {
        expect(sharing.decode(cookie, now).get("u")).toBe(users[k < 2 || k === 4 ? 0 : 1]);
      }
    }
  });

  it("forgets the oldest values beyond its bound", async () => {
    const { VERIFIED_CACHE_SIZE } = await import("../../runtime/http/session-codec.js");
    const bounded = new SessionCodec([secret], DAY);
    const cookies = Array.from({ length: VERIFIED_CACHE_SIZE + 10 }, (_, i) => bounded.encode(Session.empty.set("u", String(i)), now));
    // each sent twice in a row, as a browser does: remembered on the second visit
    const sessions = cookies.map((c) => (bounded.decode(c, now), bounded.decode(c, now)));
    expect(bounded.decode(cookies[0] as string, now)).not.toBe(sessions[0]); // forgotten: decoded anew
    expect(bounded.decode(cookies[0] as string, now).get("u")).toBe("0");
    expect(bounded.decode(cookies.at(-1) as string, now)).toBe(sessions.at(-1)); // still remembered
  });

  it("remembers a cookie on its second visit only, so more sessions in turn than it holds evict nothing", async () => {
    const { VERIFIED_CACHE_SIZE } = await import("../../runtime/http/session-codec.js");
    const admitting = new SessionCodec([secret], DAY);
    // A browser's cookie, sent again right away: remembered from its second visit on.
    const browser = admitting.encode(Session.empty.set("u", "b"), now);
    const visits = [0, 1, 2].map(() => admitting.decode(browser, now));
    expect(visits[1]).not.toBe(visits[0]);
    expect(visits[2]).toBe(visits[1]);
    // Then twice as many sessions as it holds, in turn, three times: each comes back after 2,047
    // others, past what the codec notes, so none is remembered and the browser's stays.
    const many = Array.from({ length: 2 * VERIFIED_CACHE_SIZE }, (_, i) => admitting.encode(Session.empty.set("u", String(i)), now));
    for (let round = 0; round < 3; round++) {
      for (const [i, cookie] of many.entries()) expect(admitting.decode(cookie, now).get("u")).toBe(String(i));
    }
    expect(admitting.decode(browser, now)).toBe(visits[1]);
  });

  it("keeps no Cookie header alive: 1,024 sessions remembered from 15 KB headers leave a few hundred KB, not 30 MB", () => {
    const retained = retainedBytes(
      `const { SessionCodec, arrivedSession } = await import(${distModule("http/session-codec.js")});
       const { Session } = await import(${distModule("http/session.js")});
       const { Secret } = await import(${distModule("http/secret.js")});
       const codec = new SessionCodec([new Secret("k".repeat(32))], 86400000);
       const now = Date.now();
       const cookies = Array.from({ length: 1024 }, (_, i) => codec.encode(Session.empty.set("user", "u" + i), now));`,
      `for (const [i, cookie] of cookies.entries()) {
         // twice, each in a header of its own, so the codec remembers it (on the second visit)
         for (let visit = 0; visit < 2; visit++) {
           const header = "other=" + String(i).padStart(15000, String(visit)) + "; fw_session=" + cookie;
           if (arrivedSession(header, codec, now, false).session.get("user") !== "u" + i) throw new Error("not read");
         }
       }
       const again = arrivedSession("fw_session=" + cookies[1023], codec, now, false).session;
       if (arrivedSession("fw_session=" + cookies[1023], codec, now, false).session !== again) throw new Error("not remembered");`,
    );
    expect(retained).toBeLessThan(3_000_000); // the headers alone are 30.7 MB
  });
});
