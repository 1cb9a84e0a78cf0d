import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PRODUCTION_ENV } from "../support/serve.js";
import { servedFixture } from "../support/tspc.js";

const fixture = servedFixture("basic", { ...PRODUCTION_ENV });
const dir = fixture.dir;

describe("A fixture built with tspc, booted, and answered over HTTP", () => {
  it("serves a browser route through the layout", async () => {
    const response = await fetch(`${fixture.url}/`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("<p>home /</p>");
    expect(response.headers.get("set-cookie")).toMatch(/^fw_session=/);
  });

  it("serves an API route: JSON, no cookie read or written", async () => {
    const response = await fetch(`${fixture.url}/api/items`, { headers: { cookie: "fw_session=x" } });
    expect(await response.json()).toEqual({ items: [], path: "/api/items" });
    expect(response.headers.get("set-cookie")).toBeNull();
  });

  it("decodes a typed path parameter through typia: a number works, anything else is a 400", async () => {
    expect(await (await fetch(`${fixture.url}/posts/41`)).text()).toBe("post 42");
    const bad = await fetch(`${fixture.url}/posts/forty-one`);
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("The path parameter &quot;id&quot; is not a valid number.");
  });

  it("issue 39, item 8: a number has one spelling in a path (as JavaScript writes it): 041, 41.0, 4.1e1, 0x29, +41 are a 400", async () => {
    expect(await (await fetch(`${fixture.url}/posts/1.5`)).text()).toBe("post 2.5");
    expect(await (await fetch(`${fixture.url}/posts/-2`)).text()).toBe("post -1");
    for (const spelled of ["041", "41.0", "4.1e1", "0x29", "+41", "%2041", "-0"]) {
      expect([spelled, (await fetch(`${fixture.url}/posts/${spelled}`)).status]).toEqual([spelled, 400]);
    }
  });

  it("the emitted table imports only typia's inlined helpers, never its index (which would load all of typia at boot)", () => {
    const emitted = readFileSync(join(dir, "dist/.fw/routes.js"), "utf8");
    expect(emitted).toContain('from "typia/lib/internal/');
    expect(emitted).not.toMatch(/from "typia";|require\("typia"\)/);
    expect(emitted).not.toMatch(/\btypia\.(http\.createParameter|createValidate)\(/); // every call inlined
  });

  it("supplies a capability from the capabilities module", async () => {
    expect(await (await fetch(`${fixture.url}/hello/ada`)).text()).toBe("hello, ada");
  });
});
