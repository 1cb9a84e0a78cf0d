import { describe, expect, it } from "vitest";
import { ApiRequest, BadRequest, Fields, Request, Session } from "../../runtime/index.js";
import { copyRequest, LAZY_ADDRESS } from "../../runtime/http/request.js";
import { distModule, retainedBytes } from "../support/retained.js";

describe("2.5 Request", () => {
  it("a hand-built request carries an empty session, no CSRF token, no user, and is not secure", () => {
    const request = new Request();
    expect(request.session.isEmpty).toBe(true);
    expect(request.currentUser).toBeUndefined();
    expect(request.secure).toBe(false);
    expect(request.hasCsrf).toBe(false);
    expect(() => request.csrf).toThrow(/carries no CSRF token/);
  });

  it("looks headers up by name in any case", () => {
    const request = new Request({ headers: { "Content-Type": "text/plain", "X-Many": "a" } });
    expect(request.headers.get("content-type")).toBe("text/plain");
    expect(request.headers.get("CONTENT-TYPE")).toBe("text/plain");
    expect(request.headers.get("x-none")).toBeUndefined();
  });

  it("parses an urlencoded body as its form, and nothing else", () => {
    const form = new Request({ method: "POST", body: "a=1&b=x+y&a=2", headers: { "content-type": "application/x-www-form-urlencoded; charset=utf-8" } });
    expect(form.form.getAll("a")).toEqual(["1", "2"]);
    expect(form.form.get("b")).toBe("x y");
    const json = new Request({ method: "POST", body: '{"a":1}', headers: { "content-type": "application/json" } });
    expect(json.form.size).toBe(0);
  });

  it("refuses invalid UTF-8 in the body with a 400", () => {
    const request = new Request({ body: new Uint8Array([0x61, 0xff, 0x62]) });
    expect(() => request.text).toThrow(BadRequest);
  });

  it("reads the client address from a server's record on first ask, once; from a plain init at once", () => {
    let asked = 0;
    const record = {
      [LAZY_ADDRESS]: true,
      get clientAddress() {
        asked++;
        return "192.0.2.1";
      },
    };
    const lazy = new Request(record);
    expect(asked).toBe(0);
    expect(lazy.clientAddress).toBe("192.0.2.1");
    expect(lazy.clientAddress).toBe("192.0.2.1");
    expect(asked).toBe(1);
    expect(copyRequest(new Request(record), { session: Session.empty.set("a", "b") }).clientAddress).toBe("192.0.2.1");
    const plain = { clientAddress: "198.51.100.7" };
    const eager = new Request(plain);
    plain.clientAddress = "changed later";
    expect(eager.clientAddress).toBe("198.51.100.7");
    expect(new Request().clientAddress).toBeUndefined();
  });
});

describe("2.6 ApiRequest", () => {
  it("ApiRequest.of keeps what was sent and drops the session; the Cookie header stays as sent", () => {
    const request = new Request({
      method: "POST",
      path: "/api/x",
      query: "q=1",
      headers: { cookie: "fw_session=abc" },
      body: "payload",
      session: Session.empty.set("user", "1"),
      currentUser: "1",
    });
    const api = ApiRequest.of(request);
    expect(api.method).toBe("POST");
    expect(api.path).toBe("/api/x");
    expect(api.query.get("q")).toBe("1");
    expect(api.text).toBe("payload");
    expect(api.headers.get("cookie")).toBe("fw_session=abc");
    for (const member of ["session", "csrf", "form", "currentUser", "cookies", "flash"]) {
      expect(member in api, member).toBe(false);
    }
  });

  it("is public, so a test can build one and call its handler directly", () => {
    const api = new ApiRequest({ path: "/api/items", params: { id: "3" } });
    expect(api.params.id).toBe("3");
  });
});

describe("Fields (forms and queries)", () => {
  it("keeps a __proto__ field as a field, polluting nothing", () => {
    const fields = Fields.parse("__proto__=x&constructor=y&polluted=1", "form");
    expect(fields.get("__proto__")).toBe("x");
    expect(fields.get("constructor")).toBe("y");
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    expect(Object.getPrototypeOf(Object.fromEntries(fields.entries()))).toBe(Object.prototype);
  });

  it("decodes + and percent-escapes; a malformed escape is a 400", () => {
    expect(Fields.parse("a=%C3%A9+b&empty=&bare", "form").get("a")).toBe("é b");
    expect(Fields.parse("bare", "form").get("bare")).toBe("");
    expect(() => Fields.parse("a=%E0%A4%A", "form")).toThrow(BadRequest);
    expect(() => Fields.parse("a=%C0%AF", "form")).toThrow(BadRequest);
  });

  it("refuses more than 1000 fields", () => {
    const many = Array.from({ length: 1001 }, (_, i) => `f${i}=1`).join("&");
    expect(() => Fields.parse(many, "form")).toThrow(/more than 1000 fields/);
    expect(Fields.parse(many.split("&").slice(0, 1000).join("&"), "form").size).toBe(1000);
  });
});

describe("Fields outlive their request without it", () => {
  it("a kept field is a string of its own: 200 fields kept from 500 KB forms and queries leave KBs, not 100 MB", () => {
    const retained = retainedBytes(
      `const { Fields } = await import(${distModule("http/fields.js")});
       globalThis.kept = [];`,
      `for (let i = 0; i < 100; i++) {
         const pad = String(i).padStart(500000, "y");
         globalThis.kept.push(Fields.parse("email=someone" + i + "@example.com&pad=" + pad, "form").get("email"));
         globalThis.kept.push(Fields.parse("pad=" + pad + "&q=searchedwordsnumber" + i, "query").getAll("q")[0]);
       }`,
    );
    expect(retained).toBeLessThan(5_000_000); // the bodies were 100 MB
  });
});
