import { request } from "node:http";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Browser, freshEmail, PASSWORD } from "../auth/client.js";
import { noPostgresNotice, postgresBin, startCluster, type PostgresCluster } from "../support/postgres.js";
import { bootNode, runNode } from "../support/process.js";
import { PRODUCTION_ENV } from "../support/serve.js";
import { FIXTURES, tspc } from "../support/tspc.js";
import { connect, type Client } from "../support/ws-client.js";
import { usersTableSql } from "../../runtime/db/index.js";

// Issue 21, scale-out: the scale fixture (a table model, SqlUsers, a chat room) run as several
// processes on one real PostgreSQL: two apps on two ports (as two machines behind a load
// balancer would be), and `--workers 2` on one port.
const dir = join(FIXTURES, "scale");
const main = join(dir, "dist/main.js");
const bin = postgresBin();
if (bin === undefined) noPostgresNotice();

/**
 * One GET on a connection of its own (no keep-alive), so the cluster's primary hands it to the
 * next worker. A connection that fails or gets no whole answer within 60 s (a hang: a slow machine
 * answers well within it) is status 0.
 */
function getFresh(url: string): Promise<{ status: number; body: string }> {
  return new Promise((done) => {
    const lost = () => done({ status: 0, body: "" });
    const req = request(url, { agent: false, headers: { connection: "close" }, timeout: 60_000 }, (response) => {
      let body = "";
      response.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      response.on("end", () => done({ status: response.statusCode ?? 0, body }));
      response.on("error", lost);
    });
    req.on("timeout", () => req.destroy());
    req.on("error", lost).end();
  });
}

describe.skipIf(bin === undefined)("issue 21: an app as several processes on one PostgreSQL", () => {
  let cluster: PostgresCluster | undefined;
  let env: Record<string, string> = {};
  const apps: ReturnType<typeof bootNode>[] = [];
  let a = "";
  let b = "";

  beforeAll(async () => {
    rmSync(join(dir, "db"), { recursive: true, force: true });
    const [built] = await Promise.all([tspc(dir), startCluster(bin as string).then((c) => (cluster = c))]);
    if (built.code !== 0) throw new Error(`building the scale fixture failed:\n${built.output}`);
    env = { ...PRODUCTION_ENV, DATABASE_URL: (cluster as PostgresCluster).url };
    // No owned model references the users table, so `db new` does not write it: its own migration.
    mkdirSync(join(dir, "db/migrations"), { recursive: true });
    writeFileSync(join(dir, "db/migrations/0001_users.sql"), usersTableSql());
    for (const command of [["db", "new", "init"], ["db", "migrate"]]) {
      const ran = await runNode(main, command, env, dir);
      if (ran.code !== 0) throw new Error(`${command.join(" ")} failed:\n${ran.out}\n${ran.err}`);
    }
    apps.push(bootNode(main, [], env, dir), bootNode(main, [], env, dir));
    [a = "", b = ""] = await Promise.all(apps.map((app) => app.url));
  }, 180_000);

  afterAll(async () => {
    for (const app of apps) app.child.kill("SIGTERM");
    await Promise.all(apps.map((app) => app.exited));
    await cluster?.destroy();
    rmSync(join(dir, "db"), { recursive: true, force: true });
  });

  it("signed in through one process, a guarded page is read through the other (sessions are signed cookies, users in the database)", async () => {
    const first = new Browser(a);
    expect((await first.signUp(freshEmail("scale"), PASSWORD)).status).toBe(303);
    const second = new Browser(b);
    second.cookie = first.cookie;
    const page = await second.get("/secret");
    expect(page.status).toBe(200);
    expect(page.html).toMatch(/^secret for \d+ from pid \d+$/);
    expect(page.html).not.toContain(`pid ${(await first.get("/pid")).html}`);
    // Signed out through the second process: the first no longer takes the cookie either.
    await second.get("/posts/new");
    expect((await second.post("/logout", {})).status).toBe(303);
    const after = new Browser(a);
    after.cookie = first.cookie;
    expect((await after.get("/secret")).status).toBe(303);
  });

  it("signed out through one process, the session's sockets in the other close, a public one included (issue 28, item 2)", async () => {
    const first = new Browser(a);
    const email = freshEmail("sockets");
    expect((await first.signUp(email, PASSWORD)).status).toBe(303);
    const elsewhere = new Browser(a);
    expect((await elsewhere.signIn(email, PASSWORD)).status).toBe(303);
    const clients: Client[] = [];
    try {
      clients.push(
        await connect(a, "/who/socket", { headers: { cookie: first.cookie as string } }),
        await connect(a, "/who/socket", { headers: { cookie: elsewhere.cookie as string } }),
      );
      const [mine, other] = clients as [Client, Client];
      mine.socket.send("?");
      const [user, pid] = (await mine.next()).split(" on ");
      expect(user).toMatch(/^\d+$/);
      // Signed out through B: A's socket of that session closes, the user's other session's stays.
      const throughB = new Browser(b);
      throughB.cookie = first.cookie;
      await throughB.get("/posts/new");
      expect((await throughB.post("/logout", {})).status).toBe(303);
      expect(await mine.closed).toEqual({ code: 1008, reason: "signed out" });
      other.socket.send("?");
      expect(await other.next()).toBe(`${user} on ${pid}`);
    } finally {
      for (const client of clients) client.socket.close();
    }
  }, 60_000);

  it("a row created through one process is listed by the other", async () => {
    const browser = new Browser(a);
    await browser.get("/posts/new");
    expect((await browser.post("/posts", { title: "Written through A" })).status).toBe(303);
    const listed = await new Browser(b).get("/posts");
    expect(listed.status).toBe(200);
    expect(listed.html).toContain("Written through A");
  });

  it("a chat message sent to a socket on one process reaches sockets on both (LISTEN/NOTIFY)", async () => {
    const clients: Client[] = [];
    try {
      clients.push(await connect(a, "/chat/socket"), await connect(b, "/chat/socket"), await connect(b, "/chat/socket"));
      const [onA, onB, alsoOnB] = clients as [Client, Client, Client];
      onA.socket.send("hello from A");
      const pidA = (await new Browser(a).get("/pid")).html;
      for (const client of [onA, onB, alsoOnB]) expect(await client.next()).toBe(`${pidA}: hello from A`);
      onB.socket.send("and back");
      expect(await onA.next()).toMatch(/^\d+: and back$/);
    } finally {
      for (const client of clients) client.socket.close();
    }
  });

  it("five wrong passwords spread over both processes trip the limit: the sixth is 429 in either, even with the right password", async () => {
    const email = freshEmail("limit");
    const owner = new Browser(a);
    expect((await owner.signUp(email, PASSWORD)).status).toBe(303);
    const statuses: number[] = [];
    for (const base of [a, b, a, b, a]) statuses.push((await new Browser(base).signIn(email, "not the password at all")).status);
    expect(statuses).toEqual([422, 422, 422, 422, 422]);
    const refused = await new Browser(b).signIn(email, PASSWORD);
    expect(refused.status).toBe(429);
    expect(Number(refused.response.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await new Browser(a).signIn(email, PASSWORD)).status).toBe(429);
  }, 120_000);

  it("`--workers 2` serves on one port from two processes, replaces a worker that is killed, and stops gracefully (exit 0)", async () => {
    const primary = bootNode(main, ["--workers", "2"], env, dir);
    try {
      const url = await primary.url;
      expect(primary.output().out).toMatch(/fw: serving \d+ routes on http:\/\/127\.0\.0\.1:\d+ \(2 worker processes, primary pid \d+\)\n/);
      expect(primary.output().out.match(/fw: serving/g)).toHaveLength(1);
      const seen = new Set<string>();
      for (let i = 0; i < 40 && seen.size < 2; i++) seen.add((await getFresh(`${url}/pid`)).body);
      expect(seen.size).toBe(2);
      const [victim] = [...seen];
      process.kill(Number(victim), "SIGKILL");
      // Requests after the kill are answered by the survivor, then by the replacement too. (A
      // connection the primary handed to the worker as it died may be lost: at most one.)
      const after = new Set<string>();
      let lost = 0;
      // Until the replacement answers too, however long its boot takes on a busy machine (the test's timeout is the bound).
      while (after.size < 2 && lost <= 1) {
        const answer = await getFresh(`${url}/pid`);
        if (answer.status === 0) lost++;
        else after.add(answer.body);
        if (after.size < 2) await new Promise((done) => setTimeout(done, 50));
      }
      expect(lost).toBeLessThanOrEqual(1);
      expect(after.has(victim as string)).toBe(false);
      expect(after.size).toBe(2);
      expect(primary.output().err).toContain(`fw: worker pid ${victim} exited on SIGKILL; starting another`);
    } finally {
      primary.child.kill("SIGTERM");
      expect(await primary.exited).toBe(0);
    }
    expect(primary.output().out).toContain("fw: stopping 2 worker processes: finishing in-flight requests");
  }, 120_000);

  it("`--workers 2` whose first worker cannot boot (no FW_SECRET) says why once and exits 1, starting no other worker", async () => {
    const ran = await runNode(main, ["--workers", "2"], { ...env, FW_SECRET: undefined, PORT: "0" }, dir);
    expect(ran.code).toBe(1);
    expect(ran.err.match(/fw: cannot boot: /g)).toHaveLength(1);
    expect(ran.err).toMatch(/fw: a worker \(pid \d+\) exited with code 1 before it served: stopping every worker\./);
  });
});
