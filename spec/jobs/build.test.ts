import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RouteTable } from "../../runtime/index.js";
import { appDatabase, DbApp } from "../../runtime/db/index.js";
import { JobQueue } from "../../runtime/jobs/index.js";
import { bootNode } from "../support/process.js";
import { csrfFrom, TEST_SECRET } from "../support/serve.js";
import { scratchCopy, tspc, type Built } from "../support/tspc.js";
import { until } from "./support.js";

/**
 * Issue 32: job files found by the build like routes. spec/fixtures/jobs-app (built with the real
 * tspc, fw's transformer and typia's) has three jobs under src/jobs: Welcome (enqueued by a
 * handler in its transaction), Flaky (always throws) and Nightly (recurring). One build and one
 * `dev` boot serve every test here; the builds that must fail are in
 * spec/transformer/failing-builds.test.ts (job-errors).
 */
describe("issue 32: typed job files under src/jobs, built and served (dev)", () => {
  const dir = scratchCopy("jobs-app");
  let built: Built;
  let app: ReturnType<typeof bootNode> | undefined;
  let url: string;

  beforeAll(async () => {
    built = await tspc(dir);
    if (built.code !== 0) return; // the first test says why
    app = bootNode(join(dir, "dist/main.js"), ["dev"], { FW_SECRET: TEST_SECRET, NODE_ENV: "development" }, dir);
    url = await app.url;
  }, 240_000);
  afterAll(async () => {
    if (app !== undefined && app.child.exitCode === null) {
      app.child.kill("SIGTERM");
      await app.exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it("builds, and the generated src/.fw/jobs.ts names each job file (not the lower-case helper), its validator and its options", () => {
    expect(built.code, built.output).toBe(0);
    const generated = readFileSync(join(dir, "src/.fw/jobs.ts"), "utf8");
    expect([...generated.matchAll(/^ {2}(\w+): \{$/gm)].map((m) => m[1])).toEqual(["Count", "Flaky", "Nightly", "Welcome"]);
    expect(generated).toContain('source: "src/jobs/Welcome.ts"');
    expect(generated).toContain("(input: unknown) => typia.validate<Parameters<typeof j3.run>[0]>(input)");
    expect(generated).toContain("options: j1.options,");
  });

  it("the built validator refuses, at enqueue, a payload that fails the job's type (typia's tags too), naming the job, its file and the path", async () => {
    const { jobs } = (await import(pathToFileURL(join(dir, "dist/.fw/jobs.js")).href)) as { jobs: { Welcome: { enqueue(payload: unknown): Promise<unknown> } } };
    const refused = jobs.Welcome.enqueue({ email: "not an address" });
    await expect(refused).rejects.toMatchObject({ name: "InvalidJobPayload", job: "Welcome" });
    await expect(refused).rejects.toThrow(/the payload of the job Welcome \(src\/jobs\/Welcome\.ts\) does not fit its type: \$input\.email: expected string & Format<"email">, got "not an address"\. Nothing was enqueued\./);
    await expect(jobs.Welcome.enqueue({ name: "Ada" })).rejects.toThrow(/\$input\.email: expected .*, got nothing/);
  });

  it("a handler enqueues a job in its transaction; the app's own worker runs it", async () => {
    const answer = await fetch(`${url}/api/welcome`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "ada@example.com" }) });
    expect(answer.status).toBe(202);
    expect(await answer.json()).toMatchObject({ duplicate: false });
    await until(async () => (await (await fetch(`${url}/welcomed`)).text()).includes("ada@example.com 1"));
  });

  it("issue 43, item 6: a job asks for a model's store (AllRows<Tally>) as a handler does, and writes through it what the derived pages then show", async () => {
    const generated = readFileSync(join(dir, "src/.fw/jobs.ts"), "utf8");
    expect(generated).toContain("stores: () => ({ tallies: routes.stores.Tally }),");
    expect(generated).toContain("satisfies JobSpec<Parameters<typeof j0.run>[0], Parameters<typeof j0.run>[2]>");
    const count = (label: string) => fetch(`${url}/api/tallies`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ label }) });
    expect((await count("apples")).status).toBe(202);
    await until(async () => (await (await fetch(`${url}/tallies`)).text()).includes("<td>apples</td><td>1</td>"));
    expect((await count("apples")).status).toBe(202);
    expect((await count("pears")).status).toBe(202);
    await until(async () => {
      const html = await (await fetch(`${url}/tallies`)).text();
      return html.includes("<td>apples</td><td>2</td>") && html.includes("<td>pears</td><td>1</td>");
    });
  });

  it("/fw/jobs lists a job that threw as dead with its error; Retry is refused without the CSRF token and runs it again with it", async () => {
    const answer = await fetch(`${url}/api/flaky`, { method: "POST" });
    expect(answer.status).toBe(202);
    const { id } = (await answer.json()) as { id: number };
    const page = async (cookie = ""): Promise<{ html: string; cookie: string }> => {
      const response = await fetch(`${url}/fw/jobs`, { headers: { cookie } });
      expect(response.status).toBe(200);
      const set = response.headers.getSetCookie().find((c) => c.startsWith("fw_session="))?.split(";")[0];
      return { html: await response.text(), cookie: set ?? cookie };
    };
    const dead = (html: string): string => /<section class="fw-jobs-dead"[\s\S]*?<\/section>/.exec(html)?.[0] ?? "";
    await until(async () => dead((await page()).html).includes(`Flaky #${id}`));
    const first = await page();
    const row = new RegExp(`<tr data-job="${id}">[\\s\\S]*?</tr>`).exec(dead(first.html))?.[0] ?? "";
    expect(row).toContain("<code>{&quot;reason&quot;:&quot;the mail server is down&quot;}</code>");
    expect(row).toContain("<td>2 of 2</td>");
    expect(row).toMatch(/<pre class="fw-jobs-error">Error: flaky: the mail server is down/);
    expect(row).toContain('<form method="post" action="/fw/jobs/retry">');

    const post = (body: Record<string, string>, cookie: string): Promise<globalThis.Response> =>
      fetch(`${url}/fw/jobs/retry`, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin: url }, body: new URLSearchParams(body).toString() });
    expect((await post({ id: String(id) }, first.cookie)).status).toBe(403);
    expect((await post({ id: String(id), _csrf: "forged" }, first.cookie)).status).toBe(403);
    expect(await (await fetch(`${url}/welcomed`)).text()).toBe("ada@example.com 1\nflaky 1\nflaky 2");

    const retried = await post({ id: String(id), _csrf: csrfFrom(first.html) }, first.cookie);
    expect(retried.status).toBe(303);
    expect(retried.headers.get("location")).toBe("/fw/jobs");
    // Two fresh tries, then dead again.
    await until(async () => (await (await fetch(`${url}/welcomed`)).text()).split("\n").length === 5 && dead((await page()).html).includes(`Flaky #${id}`));
    expect(await (await fetch(`${url}/welcomed`)).text()).toBe("ada@example.com 1\nflaky 1\nflaky 1\nflaky 2\nflaky 2");

    const again = await post({ id: "12abc", _csrf: csrfFrom(first.html) }, first.cookie);
    expect(again.status).toBe(400);
  });
});

describe("issue 32: the jobs page is dev only", () => {
  it("a DbApp with jobs served in production has no /fw/jobs: GET and the retry POST are 404", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fw-jobs-production-"));
    const database = appDatabase({ env: {}, directory: join(dir, "db"), durable: false });
    const app = new DbApp({ routes: RouteTable.of(), secret: TEST_SECRET, allowedHosts: ["127.0.0.1"], database, migrations: join(dir, "migrations"), jobs: new JobQueue([], { database, log: () => undefined }) });
    app.console = { out: () => undefined, err: () => undefined };
    const running = await app.serve({ port: 0, host: "127.0.0.1", dev: false, accessLog: false });
    try {
      expect((await fetch(`${running.url}/fw/jobs`)).status).toBe(404);
      expect((await fetch(`${running.url}/fw/jobs/retry`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "id=1" })).status).toBe(404);
    } finally {
      await running.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
