import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { Actions, FromPath, HttpApp, InMemoryStore, Index, Ok, Relations, resourceRoutes, Route, RouteTable, Show, type ModelSpec } from "../../runtime/index.js";
import { routesCommand } from "../../runtime/server/routes-command.js";
import type { RouteRow } from "../../runtime/server/routes-listing.js";
import { runNode } from "../support/process.js";

// The example as `npm run build` compiled it (npm test builds first).
const main = resolve("example/dist/main.js");

interface Listing {
  readonly routes: readonly RouteRow[];
  readonly warnings: readonly string[];
  readonly notes: readonly string[];
}

/** The human table read back: cells are separated by two spaces or more, "-" is no guard. */
function readTable(out: string): Listing {
  const lines = out.trimEnd().split("\n");
  expect(lines[0]).toMatch(/^METHOD\s+PATH\s+HANDLER\s+ORIGIN\s+KIND\s+GUARD$/);
  const warnings = lines.filter((line) => line.startsWith("warning: ")).map((line) => line.slice("warning: ".length));
  const notes = lines.filter((line) => line.startsWith("note: ")).map((line) => line.slice("note: ".length));
  const routes = lines
    .slice(1)
    .filter((line) => !line.startsWith("warning: ") && !line.startsWith("note: ") && line !== "(no routes)")
    .map((line): RouteRow => {
      const [method, path, source, origin, kind, guard] = line.split(/ {2,}/) as [string, string, string, string, "browser" | "api", string];
      return { method, path, source, origin, kind, guard: guard === "-" ? null : guard };
    });
  return { routes, warnings, notes };
}

async function routes(...args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return runNode(main, ["routes", ...args]);
}

describe("routes --json", () => {
  it("prints only JSON on stdout: every row of the human table, in the same order, and the same warnings", async () => {
    const json = await routes("--json");
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.out) as Listing;
    const human = readTable((await routes()).out);
    expect(parsed.routes.length).toBeGreaterThan(3);
    expect(parsed).toEqual(human);
    for (const row of parsed.routes) expect(Object.keys(row).sort()).toEqual(["guard", "kind", "method", "origin", "path", "source"]);
  });

  it("carries the boot warnings in its warnings array (a shadowed route here), and the notes in its notes array", () => {
    const table = RouteTable.of(Route.get("/*all", () => Ok("all")), Route.get("/late", () => Ok("late"), { source: "Late.ts" }));
    const out: string[] = [];
    const checked = { routes: table.routes, warnings: ["the late route is shadowed"], notes: ["a page is overridden"] };
    expect(routesCommand(["--json"], checked, { out: (t) => out.push(t), err: () => {} })).toBe(0);
    const parsed = JSON.parse(out.join("\n")) as Listing;
    expect(parsed.warnings).toEqual(["the late route is shadowed"]);
    expect(parsed.notes).toEqual(["a page is overridden"]);
    expect(parsed.routes[1]).toEqual({ method: "GET", path: "/late", source: "Late.ts", origin: "Handwritten", kind: "browser", guard: null });
  });
});

describe("routes --match (on the example)", () => {
  it("names the route that answers, its decoded params, and every earlier route with why it was skipped", async () => {
    const table = (JSON.parse((await routes("--json")).out) as Listing).routes;
    const at = table.findIndex((row) => row.method === "GET" && row.path === "/guestbook/:id");
    expect(at).toBeGreaterThan(0);
    const { code, out } = await routes("--match", "GET /guestbook/3");
    expect(code).toBe(0);
    const lines = out.trimEnd().split("\n");
    expect(lines[0]).toBe("GET /guestbook/3");
    expect(lines[1]).toMatch(/^answered by GET \/guestbook\/:id {2}\(src\/app\/guestbook\/_id\/Show\.tsx; Handwritten, browser\)$/);
    expect(lines[2]).toBe("  id = 3"); // decoded by the build's typia decoder: a number, not "3"
    expect(lines[3]).toBe("skipped before it, in table order:");
    const skipped = lines.slice(4);
    expect(skipped).toHaveLength(at);
    skipped.forEach((line, i) => {
      const row = table[i] as RouteRow;
      expect(line).toMatch(new RegExp(`^  #${i + 1}\\s+${row.method}\\s+${row.path.replaceAll("/", "\\/")}\\s+\\S+\\s+(pattern does not match: .+|method differs: it serves \\w+|a WebSocket route: it answers upgrades only)$`));
    });
  });

  it("answers 405 with the Allow list, the routes on that path skipped because their method differs", async () => {
    const { out } = await routes("--match", "DELETE /guestbook");
    const lines = out.trimEnd().split("\n");
    expect(lines[1]).toBe("405 Method Not Allowed: no route serves this method here; Allow: GET, POST, HEAD");
    expect(out).toMatch(/#\d+\s+GET\s+\/guestbook\s+\S+\s+method differs: it serves GET\n/);
    expect(out).toMatch(/#\d+\s+POST\s+\/guestbook\s+\S+\s+method differs: it serves POST\n/);
  });

  it("answers 404 after considering every route", async () => {
    const count = (JSON.parse((await routes("--json")).out) as Listing).routes.length;
    const { out } = await routes("--match", "GET /no/such/page");
    const lines = out.trimEnd().split("\n");
    expect(lines[1]).toBe("404 Not Found: no route matches this path");
    expect(lines[2]).toBe("considered, in table order:");
    expect(lines.slice(3)).toHaveLength(count);
    expect(lines.slice(3).every((line) => /pattern does not match: |a WebSocket route: it answers upgrades only/.test(line))).toBe(true);
  });

  it("refuses an argument that is not a method and a path, with the usage and exit code 2", async () => {
    const { code, out, err } = await routes("--match", "guestbook");
    expect(code).toBe(2);
    expect(out).toBe("");
    expect(err).toContain('routes --match "GET /path"');
  });
});

describe("routes --match (in process)", () => {
  const table = RouteTable.of(
    Route.get("/items/:id", () => Ok("item"), { params: { id: FromPath.int }, source: "Item.ts" }),
    Route.ws("/chat", { message() {} }, { source: "Chat.ts" }),
    Route.get("/files/*rest", () => Ok("file"), { source: "Files.ts" }),
  );
  const match = (asked: string): string => {
    const out: string[] = [];
    routesCommand(["--match", asked], { routes: table.routes, warnings: [], notes: [] }, { out: (t) => out.push(t), err: (t) => out.push(t) });
    return out.join("\n");
  };

  it("reports the 400 a parameter that does not decode would get", () => {
    expect(match("GET /items/x")).toContain('  id = "x"\n  → 400 Bad Request: The path parameter "id" is not a valid integer.');
  });

  it("shows percent-decoded params, a catch-all's rest, HEAD served by GET, and a socket route's reason", () => {
    const rest = match("HEAD /files/a%20b/c");
    expect(rest).toContain("answered by GET /files/*rest");
    expect(rest).toContain("  rest = 'a b/c'");
    expect(rest).toMatch(/#2\s+WS\s+\/chat\s+Chat\.ts\s+a WebSocket route: it answers upgrades only/);
    expect(match("GET /chat")).toContain("400 Bad Request: WS /chat (Chat.ts) takes WebSocket connections only");
  });

  it("names what fw answers itself and what it refuses before the table", () => {
    expect(match("GET /fw/health")).toContain("answered by fw itself, before the table");
    expect(match("TRACE /items/1")).toContain("501 Not Implemented");
    expect(match("GET /items/%ZZ")).toContain("400 Bad Request: The path has a malformed percent-encoding.");
  });
});

describe("routes on a table with two derived models of one name (issue 39 item 11)", () => {
  interface Note {
    id: number;
    text: string;
  }
  const note = (fqn: string): ModelSpec<Note> => ({
    name: "Note",
    fqn,
    path: "/notes",
    key: "id",
    fields: [{ name: "text", label: "Text", input: "text", optional: false, describe: "a text", maxLength: 200 }],
    validate: (input) => ({ success: true, data: input as Note }),
    decodeKey: FromPath.int,
  });
  /** As the generated table makes it: one Relations for every model's routes. */
  const table = (first: Actions, second: Actions): RouteTable => {
    const relations = new Relations();
    return RouteTable.of(
      ...resourceRoutes(note("models.Note"), new InMemoryStore<Note>("id"), { relations, source: "src/models/Note.ts", actions: first }),
      ...resourceRoutes(note("archive.Note"), new InMemoryStore<Note>("id"), { relations, source: "src/archive/Note.ts", actions: second }),
    );
  };
  const run = async (routes: RouteTable, args: string[]): Promise<{ code: number; out: string; err: string }> => {
    const app = new HttpApp({ routes });
    const out: string[] = [];
    const err: string[] = [];
    app.console = { out: (text) => out.push(text), err: (text) => err.push(text) };
    const code = await app.main(args);
    return { code, out: out.join("\n"), err: err.join("\n") };
  };
  const bootError = /^fw: cannot boot: the models src\/models\/Note\.ts and src\/archive\/Note\.ts are both named Note, so both derive \/notes: /;

  it("the table is made (no throw from the shared Relations), and `routes` prints the boot error naming both model files and the path, exit 1", async () => {
    const { code, out, err } = await run(table(Actions.all, Actions.all), ["routes"]);
    expect(code).toBe(1);
    expect(out).toBe("");
    expect(err).toMatch(bootError);
    expect(err).toContain("Rename one of them (ArchivedNote would derive /archived-notes).");
    expect(err).not.toMatch(/\n\s+at /);
  });

  it("the same when their routes do not collide (one mounts Index alone, the other Show): one name is one model in the app's Relations", async () => {
    const { code, err } = await run(table(Actions.only(Index), Actions.only(Show)), ["routes"]);
    expect(code).toBe(1);
    expect(err).toMatch(bootError);
  });

  it("booting the table fails with the same message, before listening", async () => {
    const { code, err } = await run(table(Actions.all, Actions.all), []);
    expect(code).toBe(1);
    expect(err).toMatch(bootError);
  });
});
