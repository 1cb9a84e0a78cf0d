import { availableParallelism } from "node:os";
import { describe, expect, it } from "vitest";
import { HttpApp, RouteTable, type Console } from "../../runtime/index.js";
import { workersRequest } from "../../runtime/app/workers-flag.js";
import { appDatabase, DbApp } from "../../runtime/db/index.js";
import { TEST_SECRET } from "../support/serve.js";

/** Runs `main` with these arguments and keeps what it printed. */
async function mainOf(app: HttpApp, args: readonly string[]): Promise<{ code: number; err: string }> {
  const lines: string[] = [];
  const console: Console = { out: () => undefined, err: (line) => void lines.push(line) };
  app.console = console;
  return { code: await app.main(args), err: lines.join("\n") };
}

// Issue 21: `node dist/main.js --workers [N]` runs N serving processes on one port (node:cluster).
// The processes themselves are tested in processes.test.ts; here, what the flag takes.
describe("issue 21: --workers on the command line", () => {
  it("reads --workers N, --workers=N and a bare --workers (one per core), and takes it out of the workers' arguments", () => {
    expect(workersRequest(["--workers", "3"], false)).toEqual({ count: 3, args: [] });
    expect(workersRequest(["--workers=2"], false)).toEqual({ count: 2, args: [] });
    expect(workersRequest(["--workers"], false)).toEqual({ count: availableParallelism(), args: [] });
    expect(workersRequest([], false)).toBeUndefined();
    expect(workersRequest(["routes"], false)).toBeUndefined();
    // Under NODE_ENV=production, `dev` serves production: workers are fine.
    expect(workersRequest(["dev", "--workers", "2"], true)).toEqual({ count: 2, args: ["dev"] });
  });

  it("refuses a count that is not 1 to 256, dev, and commands that do not serve, saying why (exit 2)", async () => {
    const app = new HttpApp({ routes: RouteTable.of(), secret: TEST_SECRET });
    const zero = await mainOf(app, ["--workers=0"]);
    expect(zero).toEqual({ code: 2, err: 'fw: --workers takes a whole number of processes from 1 to 256 (or nothing: one per core), not "0".' });
    expect((await mainOf(app, ["--workers=many"])).err).toContain('not "many"');
    expect((await mainOf(app, ["--workers", "999"])).code).toBe(2);
    const dev = await mainOf(app, ["dev", "--workers", "2"]);
    expect(dev.code).toBe(2);
    expect(dev.err).toContain("dev serves one process that restarts on save");
    const routes = await mainOf(app, ["routes", "--workers"]);
    expect(routes).toEqual({ code: 2, err: 'fw: --workers goes with serving (no command), not with "routes".' });
  });

  it("DbApp on the embedded PGlite refuses --workers, naming the database and DATABASE_URL (one process opens it)", async () => {
    const app = new DbApp({ routes: RouteTable.of(), secret: TEST_SECRET, database: appDatabase({ env: {}, directory: "/nonexistent/never-opened" }) });
    const refused = await mainOf(app, ["--workers", "2"]);
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/^fw: --workers needs a database several processes can share, and PGlite at .* is the embedded one, which one process opens at a time\. Set DATABASE_URL/);
  });
});
