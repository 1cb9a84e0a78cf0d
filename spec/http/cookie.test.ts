import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Cookie } from "../../runtime/index.js";
import { requestCookies } from "../../runtime/http/cookie.js";

describe("2.8 Cookie", () => {
  it("renders Path=/, HttpOnly and SameSite=Lax, with no lifetime, Expires or Domain", () => {
    const rendered = Cookie.of("fw_session", "abc.def", { secure: false }).render();
    expect(rendered).toBe("fw_session=abc.def; Path=/; HttpOnly; SameSite=Lax");
    expect(rendered).not.toMatch(/Expires|Domain|Max-Age/i);
  });

  it("adds Secure only when the request came over HTTPS", () => {
    expect(Cookie.of("a", "b", { secure: true }).render()).toBe("a=b; Path=/; HttpOnly; SameSite=Lax; Secure");
  });

  it("Cookie.expired sets Max-Age=0 and an empty value", () => {
    expect(Cookie.expired("fw_session", { secure: false }).render()).toBe(
      "fw_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0",
    );
  });

  it.each([["bad name"], ["semi;colon"], ["a=b"], [""], ["tab\t"], ["ünï"]])(
    "refuses the name %j, which is not an RFC 2616 token",
    (name) => {
      expect(() => Cookie.of(name, "v", { secure: false })).toThrow(/RFC 2616 token/);
    },
  );

  it.each([
    ["has space", /a space at index 3/],
    ['quo"te', /double quote/],
    ["com,ma", /a comma/],
    ["semi;colon", /a semicolon/],
    ["back\\slash", /a backslash/],
    ["nul\0", /control character U\+0000/],
    ["é", /character "é"/],
  ])("refuses the value %j, naming the violation", (value, message) => {
    expect(() => Cookie.of("n", value, { secure: false })).toThrow(message);
  });

  it("accepts every cookie-octet (base64url and punctuation)", () => {
    const octets = "!#$%&'()*+-./0123456789:<=>?@ABCXYZ[]^_`abcxyz{|}~";
    expect(Cookie.of("n", octets, { secure: false }).value).toBe(octets);
  });

  it("reads every value of a name from a Cookie header", () => {
    expect(requestCookies("a=1; fw_session=x.y; b=2", "fw_session")).toEqual(["x.y"]);
    expect(requestCookies("fw_session=1; fw_session=2", "fw_session")).toEqual(["1", "2"]);
    expect(requestCookies(undefined, "fw_session")).toEqual([]);
    expect(requestCookies("garbage;;==;", "fw_session")).toEqual([]);
    expect(requestCookies(" \tfw_session \u00a0= v \r; fw_sessionX=1; x fw_session=2; fw_session", "fw_session")).toEqual(["v"]);
  });

  it("reads a Cookie header as cutting each pair and trimming its name and value would", () => {
    // The reference: what requestCookies did before it read the header in place.
    const byCutting = (header: string, name: string): string[] => {
      const found: string[] = [];
      let start = 0;
      while (start < header.length) {
        let end = header.indexOf(";", start);
        if (end === -1) end = header.length;
        const eq = header.indexOf("=", start);
        if (eq !== -1 && eq < end && header.slice(start, eq).trim() === name) found.push(header.slice(eq + 1, end).trim());
        start = end + 1;
      }
      return found;
    };
    const piece = fc.constantFrom("fw_session", "fw_sessio", "a", "=", ";", " ", "\t", "\u00a0", "\u3000", "\ufeff", "\n", "x.y", "é");
    const header = fc.array(piece, { maxLength: 24 }).map((pieces) => pieces.join(""));
    fc.assert(
      fc.property(header, fc.constantFrom("fw_session", "a"), (text, name) => {
        expect(requestCookies(text, name)).toEqual(text === "" ? [] : byCutting(text, name));
      }),
      { numRuns: 2000 },
    );
  });
});
