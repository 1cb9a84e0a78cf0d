import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { Visitor } from "../support/browser.js";
import { runNode } from "../support/process.js";
import { PRODUCTION_ENV } from "../support/serve.js";
import { servedFixture } from "../support/tspc.js";

const fixture = servedFixture("guarded", { ...PRODUCTION_ENV });
const dir = fixture.dir;

describe("4.5 Guards in the generated table (guardFor, carries, identify)", () => {
  it("a page exporting `guarded` is wrapped: nobody signed in → 303 to the guard's login page", async () => {
    const visitor = new Visitor(fixture.url);
    const refused = await visitor.get("/secret");
    expect(refused.status).toBe(303);
    expect(refused.response.headers.get("location")).toBe("/login");
    expect((await visitor.get("/login")).html).toBe("please sign in");
  });

  it("a page's declaration is not read for its actions (spec 2.12.4): one naming only Destroy still guards the page", async () => {
    const visitor = new Visitor(fixture.url);
    const refused = await visitor.get("/vault");
    expect([refused.status, refused.response.headers.get("location")]).toEqual([303, "/login"]);
    await visitor.get("/as/dee");
    expect((await visitor.get("/vault")).html).toBe("vault of dee");
  });

  it("the wrapper names the user on a guarded page; a public page reads nobody however the visitor signed in", async () => {
    const visitor = new Visitor(fixture.url);
    await visitor.get("/as/ada");
    expect((await visitor.get("/secret")).html).toBe("secret for ada");
    expect((await visitor.get("/open")).html).toBe("open to nobody");
  });

  it("a model's declaration covers only the roles its actions name", async () => {
    const visitor = new Visitor(fixture.url);
    expect((await visitor.get("/memos")).status).toBe(200);
    expect((await visitor.get("/memos/new")).status).toBe(303);
    await visitor.get("/as/bob");
    expect((await visitor.get("/memos/new")).status).toBe(200);
  });

  it("carries are concatenated and taken distinct: the login page shared by two declarations is mounted once", async () => {
    const routes = await runNode(join(dir, "dist/main.js"), ["routes"]);
    expect(routes.code).toBe(0);
    expect(routes.out.match(/GET\s+\/login\s/g)).toHaveLength(1);
    expect(routes.out).toMatch(/GET\s+\/secret\s+src\/app\/Secret\.ts\s+Handwritten\s+browser\s+signedIn/);
    expect(routes.out).toMatch(/GET\s+\/memos\s+src\/models\/Memo\.ts\s+Resource\s+browser\s+-/);
  });

  it("the table's identify composes every declaration's identify (used on socket upgrades)", async () => {
    // Under vitest the generated module's `fw` resolves to the sources, as this import does.
    const fw = await import("../../runtime/index.js");
    const generated = (await import(pathToFileURL(join(dir, "dist/.fw/routes.js")).href)) as { table(): import("../../runtime/index.js").RouteTable };
    const table = generated.table();
    const signedIn = new fw.Request({ session: fw.Session.empty.set("user", "cy") });
    expect((await table.identify(signedIn)).currentUser).toBe("cy");
    expect((await table.identify(new fw.Request())).currentUser).toBeUndefined();
  });
});
