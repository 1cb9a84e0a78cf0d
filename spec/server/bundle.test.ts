import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { SourceMap, type SourceMapPayload } from "node:module";
import { join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isExternal } from "../../runtime/dev/bundle.js";
import { TestClient, testFile } from "../../runtime/testing/index.js";
import { Browser, freshEmail, PASSWORD } from "../auth/client.js";
import { bundleExample, FW, type ExampleBundle } from "../support/bundle.js";
import { bootExample } from "../support/example.js";
import { runNode } from "../support/process.js";
import { PRODUCTION_ENV, TEST_MAILBOX } from "../support/serve.js";
import { png } from "../files/support.js";
import { connect } from "../support/ws-client.js";

// `fw bundle` as a user runs it, on the example as `npm run build` built it (npm test builds
// first). The black-box checks every build must pass are in spec/auth/example.test.ts, run on
// both the build and its bundle; here: what the command writes, what the bundle loads, and
// the command's errors.

const HOOKS = resolve("spec/support/hooks");
const withHook = (hook: string): string => `${process.env["NODE_OPTIONS"] ?? ""} --import ${join(HOOKS, hook)}`.trim();

let bundle: ExampleBundle;
const scratches: string[] = [];

/** An empty folder outside the checkout, removed after the file. */
function scratch(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `fw-bundle-${name}-`));
  scratches.push(dir);
  return dir;
}

/** A project whose build is one file, `dist/main.js`. */
function builtProject(name: string, main: string): string {
  const dir = scratch(name);
  mkdirSync(join(dir, "dist"));
  writeFileSync(join(dir, "dist", "main.js"), main);
  return dir;
}

beforeAll(async () => {
  bundle = await bundleExample();
});

afterAll(() => {
  bundle?.remove();
  for (const dir of scratches) rmSync(dir, { recursive: true, force: true });
});

/** The files `fw bundle` listed, each with what it said of it ("entry", "loaded at boot", "loaded on demand", …). */
function listed(out: string): Map<string, string> {
  return new Map([...out.matchAll(/^ {2}(\S+) +[\d.]+ KB(?: {2}(.+))?$/gm)].map((m) => [m[1] as string, m[2] ?? ""]));
}

/** What a process run with log-loads.mjs loaded: file URLs (ES modules) and paths (CommonJS), the hook's own files left out. */
function loadedBy(err: string): string[] {
  return [...err.matchAll(/^loaded (file:\S+|\/\S+)$/gm)].map((m) => m[1] as string).filter((file) => !file.includes("/spec/support/hooks/"));
}

/** Boots a build with every module it loads logged on stderr. */
function bootLogged(main: string) {
  return bootExample([], { ...PRODUCTION_ENV, NODE_OPTIONS: withHook("log-loads.mjs") }, { main });
}

describe("fw bundle on the built example", () => {
  it("writes main.js and its chunks, says which load at boot and which on demand, and that ws stays in node_modules", () => {
    expect(bundle.ran.err).toBe("");
    const files = listed(bundle.ran.out);
    const onDisk = readdirSync(bundle.out, { recursive: true, encoding: "utf8" }).filter((file) => statSync(join(bundle.out, file)).isFile());
    expect([...files.keys()].sort()).toEqual(onDisk.sort());
    // fw/live's browser client, read beside the module that serves it: beside the chunks (the example has live pages).
    expect(readFileSync(join(bundle.out, "client", "live.js"), "utf8")).toBe(readFileSync("dist/runtime/live/client/live.js", "utf8"));
    // fw/db's template of a new embedded database, read beside its module too (issue 30 item 2).
    const template = readdirSync("dist/runtime/db").filter((file) => /^pglite-template-.+\.tar\.gz$/.test(file));
    expect(template).toHaveLength(1);
    expect(readFileSync(join(bundle.out, template[0] as string)).equals(readFileSync(join("dist/runtime/db", template[0] as string)))).toBe(true);
    expect(files.get("main.js")).toBe("entry");
    expect(files.get("package.json")).toBe("makes the .js files ES modules");
    // What fw imports lazily stays out of the boot: the socket server and its ws upgrader, the dev modules, the routes command.
    for (const lazy of ["server-", "upgrader-", "in-app-", "dev-details-", "routes-command-"]) {
      expect([...files].filter(([file, role]) => file.startsWith(lazy) && role === "loaded on demand")).toHaveLength(1);
    }
    // The database drivers stay there too: fw/db imports the one the app's DATABASE_URL picks.
    // And fw's multipart parser and file-type, which the core loads on the first upload (issue 40);
    // sharp, which fw/files loads with the first image; the S3 client, for files kept on S3.
    expect(bundle.ran.out).toContain(
      "Imported from node_modules when it runs: @aws-sdk/client-s3, @aws-sdk/s3-request-presigner, @electric-sql/pglite, @fastify/busboy, @opentelemetry/api, @opentelemetry/core, @opentelemetry/resources, @opentelemetry/sdk-trace-node, @redis/client, @simplewebauthn/server, @zxcvbn-ts/core, @zxcvbn-ts/language-common, @zxcvbn-ts/language-en, croner, file-type, nodemailer, openid-client, otplib, pg, pino, prom-client, qrcode, sharp, ws, yazl\n",
    );
    expect(bundle.ran.out).toContain(`node ${relative(process.cwd(), bundle.main)}`);
    // fw, typia and the app are in the bundle: the entry imports only its chunks and Node's builtins.
    const main = readFileSync(bundle.main, "utf8");
    const imports = [...main.matchAll(/^import .*?from "([^"]+)";$/gm)].map((m) => m[1] as string);
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.filter((from) => !from.startsWith("./") && !from.startsWith("node:"))).toEqual([]);
    expect(main).toContain("fw example"); // the example's layout
    expect(main).toContain("var HttpApp = class"); // fw
    expect(main).toContain("TypeGuardError"); // typia's runtime, which the built codecs call
  });

  it("`routes` runs from the bundle as from the build", async () => {
    const [built, bundled] = await Promise.all([runNode(resolve("example/dist/main.js"), ["routes"]), runNode(bundle.main, ["routes"])]);
    expect(bundled.code).toBe(0);
    expect(bundled.out).toBe(built.out);
    expect(bundled.out).toMatch(/GET\s+\/posts\/new\s+src\/models\/Post\.ts/);
  });

  describe("booted with every loaded module logged", () => {
    let app: ReturnType<typeof bootLogged>;
    let url: string;

    beforeAll(async () => {
      app = bootLogged(bundle.main);
      url = await app.url;
    });

    afterAll(async () => {
      app.child.kill("SIGTERM");
      await app.exited;
    });

    it("boots on the entry and the chunks it imports, far fewer modules than the build as built, without dev code or ws", async () => {
      expect((await fetch(`${url}/`)).status).toBe(200);
      expect((await fetch(`${url}/nowhere`)).status).toBe(404);
      const everything = loadedBy(app.output().err);
      // The example opens its database at boot: the driver of its engine loads from node_modules, and
      // croner (fw/jobs reads the nightly job's cron at boot, issue 32); nothing else does.
      const driver = app.database.engine === "postgres" ? /node_modules[\\/](pg[^\\/]*|postgres-[^\\/]+|pgpass|split2|xtend)[\\/]/ : /node_modules[\\/]@electric-sql[\\/]pglite[\\/]/;
      const croner = /node_modules[\\/]croner[\\/]/;
      expect(everything.some((file) => croner.test(file))).toBe(true);
      const loaded = everything.filter((file) => !driver.test(file) && !croner.test(file));
      expect(everything.length).toBeGreaterThan(loaded.length);
      const files = listed(bundle.ran.out);
      // The entry, its static imports, and the socket server: fw imports it at boot for an app with a socket route (the example's chat).
      const atBoot = [...files].filter(([file, role]) => role === "entry" || role === "loaded at boot" || (file.startsWith("server-") && file.endsWith(".js")));
      expect(loaded.sort()).toEqual(atBoot.map(([file]) => pathToFileURL(join(bundle.out, file)).href).sort());

      const built = bootLogged(resolve("example/dist/main.js"));
      try {
        expect((await fetch(`${await built.url}/`)).status).toBe(200);
      } finally {
        built.child.kill("SIGTERM");
        await built.exited;
      }
      const builtLoaded = loadedBy(built.output().err);
      expect(builtLoaded.length).toBeGreaterThan(5 * loaded.length);
      expect(builtLoaded.filter((file) => /node_modules[\\/](ws|rolldown)[\\/]/.test(file))).toEqual([]);
    });

    it("a WebSocket to /chat/socket works; the socket chunks and ws load with the first one", async () => {
      const before = loadedBy(app.output().err);
      expect(before.filter((file) => /node_modules[\\/]ws[\\/]|\/upgrader-[^/]+\.js$/.test(file))).toEqual([]);
      const browser = new Browser(url);
      const email = freshEmail("bundle-chat");
      expect((await browser.signUp(email, PASSWORD)).status).toBe(303);
      const client = await connect(url, "/chat/socket", { headers: { cookie: browser.cookie as string } });
      client.socket.send("hello from the bundle");
      expect(await client.next()).toBe(`${email}: hello from the bundle`);
      client.socket.close();
      const after = loadedBy(app.output().err);
      expect(after.some((file) => file.startsWith(pathToFileURL(join(bundle.out, "upgrader-")).href))).toBe(true);
      expect(after.some((file) => /node_modules[\\/]ws[\\/]/.test(file))).toBe(true);
    });

    it("a post's cover uploads and its thumbnail is made: the multipart reader, file-type and sharp load with the first upload, from node_modules (issue 40)", async () => {
      const sharp = /node_modules[\\/]sharp[\\/]/;
      expect(loadedBy(app.output().err).filter((file) => sharp.test(file))).toEqual([]);
      const author = new TestClient(url, TEST_MAILBOX);
      expect((await author.signUp(freshEmail("bundle-cover"), PASSWORD)).status).toBe(303);
      const made = await author.submit("/posts/new", { title: "Bundled cover", body: "b", category: "news", published: "true", cover: testFile("cover.png", png(300, 200), "image/png") });
      expect(made.status, made.summary()).toBe(303);
      const thumb = /<img src="([^"]+\/thumb)"/.exec((await author.get("/posts")).text)?.[1] as string;
      const answer = await author.get(thumb);
      expect([answer.status, answer.headers.get("content-type")]).toEqual([200, "image/webp"]);
      const after = loadedBy(app.output().err);
      expect(after.some((file) => sharp.test(file))).toBe(true);
      expect(after.some((file) => /node_modules[\\/]file-type[\\/]/.test(file))).toBe(true);
    });
  });

  it("outside the app it warns that ws would not resolve there; the bundle still runs as ES modules", async () => {
    const out = scratch("outside");
    const ran = await runNode(FW, ["bundle", "--project", "example", "--out", out]);
    expect(ran.code).toBe(0);
    expect(ran.err).toContain(`fw bundle: warning: @electric-sql/pglite, @fastify/busboy, @opentelemetry/api, @opentelemetry/core, @opentelemetry/resources, @opentelemetry/sdk-trace-node, @redis/client, @simplewebauthn/server, @zxcvbn-ts/core, @zxcvbn-ts/language-common, @zxcvbn-ts/language-en, croner, file-type, nodemailer, openid-client, otplib, pg, pino, prom-client, qrcode, sharp, ws, yazl are not installed in a node_modules at or above ${out}`);
    // The S3 client is a note: files on disk (the default) need none.
    expect(ran.out).toContain("fw bundle: @aws-sdk/client-s3 is not installed; fw/files loads it only for files kept on S3 (FW_STORAGE=s3://…), so the bundle runs without it until the app is pointed at a bucket (then: npm install @aws-sdk/client-s3).");
    const routes = await runNode(join(out, "main.js"), ["routes"]);
    expect(routes.err).toBe("");
    expect(routes.code).toBe(0);
  });

  it("issue 28: an app with the embedded database's driver and not pg gets a note, not a warning, for pg; a missing package inside the app is an `npm install`", async () => {
    // An app on fw/db whose node_modules holds PGlite alone (no pg, and no ws either).
    const app = builtProject(
      "pglite-only",
      `import { DbApp } from ${JSON.stringify(resolve("dist/runtime/db/index.js"))};\nimport { RouteTable } from ${JSON.stringify(resolve("dist/runtime/index.js"))};\n` +
        "process.exitCode = await new DbApp({ routes: RouteTable.of() }).main();\n",
    );
    mkdirSync(join(app, "node_modules", "@electric-sql"), { recursive: true });
    symlinkSync(resolve("node_modules/@electric-sql/pglite"), join(app, "node_modules", "@electric-sql", "pglite"));
    const ran = await runNode(FW, ["bundle"], {}, app);
    expect(ran.code).toBe(0);
    expect(ran.out).toContain("fw bundle: pg is not installed; fw/db loads it only for a PostgreSQL server (DATABASE_URL=postgres://…), so the bundle runs without it until the app is pointed at one (then: npm install pg).");
    // ws and the multipart parser and file-type (issue 40) are needed whatever the database: the warning names them alone, and the bundle is already in the app.
    expect(ran.err).toBe(
      `fw bundle: warning: @fastify/busboy, @opentelemetry/api, @opentelemetry/core, @opentelemetry/resources, @opentelemetry/sdk-trace-node, @redis/client, file-type, pino, prom-client, ws are not installed in a node_modules at or above dist/bundle, so the bundle would fail when it imports them. Install them in the app: npm install @fastify/busboy @opentelemetry/api @opentelemetry/core @opentelemetry/resources @opentelemetry/sdk-trace-node @redis/client file-type pino prom-client ws\n`,
    );
  });

  it("run again, it replaces its own output; a folder it did not write is refused and left as it was", async () => {
    const out = scratch("again");
    expect((await runNode(FW, ["bundle", "--project", "example", "--out", out])).code).toBe(0);
    writeFileSync(join(out, "stale-chunk.js"), "// from an older bundle");
    expect((await runNode(FW, ["bundle", "--project", "example", "--out", out])).code).toBe(0);
    expect(existsSync(join(out, "stale-chunk.js"))).toBe(false);
    expect(existsSync(join(out, "main.js"))).toBe(true);

    const foreign = scratch("foreign");
    writeFileSync(join(foreign, "keep.txt"), "mine");
    const refused = await runNode(FW, ["bundle", "--project", "example", "--out", foreign]);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain(`fw bundle: --out ${foreign} is not empty and was not written by fw bundle`);
    expect(readdirSync(foreign)).toEqual(["keep.txt"]);
  });
});

/** Where a bundle position leads through the bundle's map (lines and columns 0-based, as the map's). */
function original(file: string, line: number, column: number): { source: string; line: number } {
  const map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, "utf8")) as SourceMapPayload);
  const entry = map.findEntry(line, column) as { originalSource?: string; originalLine?: number };
  return { source: entry.originalSource ?? "", line: entry.originalLine ?? -1 };
}

/** The 0-based line and column where `text` starts in `code`. */
function positionOf(code: string, text: string): [number, number] {
  const at = code.indexOf(text);
  if (at === -1) throw new Error(`${JSON.stringify(text)} is not in the file`);
  const before = code.slice(0, at).split("\n");
  return [before.length - 1, (before.at(-1) as string).length];
}

describe("fw bundle's source maps", () => {
  it("each file with code has a map, and the entry's lead through the build's own maps back to the app's TypeScript", () => {
    const files = readdirSync(bundle.out);
    for (const file of files.filter((f) => f.endsWith(".js"))) {
      const code = readFileSync(join(bundle.out, file), "utf8");
      // a chunk that only re-exports another (one line, nothing to map) gets none
      if (/^export \{[^}]*\} from "[^"]+";\s*$/.test(code)) continue;
      expect(files).toContain(`${file}.map`);
      expect(code).toMatch(new RegExp(`//# sourceMappingURL=${file.replace(/\./g, "\\.")}\\.map\\s*$`));
    }
    // A statement of example/src/main.ts, found in the bundle's entry, maps to its line there.
    const statement = "process.exitCode = await app.main();";
    const sourceLine = readFileSync("example/src/main.ts", "utf8").split("\n").findIndex((line) => line.includes(statement));
    const mapped = original(bundle.main, ...positionOf(readFileSync(bundle.main, "utf8"), statement));
    expect({ source: resolve(bundle.out, mapped.source), line: mapped.line }).toEqual({ source: resolve("example/src/main.ts"), line: sourceLine });
    // fw's own code leads back to fw's TypeScript too (its build writes maps).
    const sources = (JSON.parse(readFileSync(`${bundle.main}.map`, "utf8")) as { sources: string[] }).sources;
    expect(sources).toContain("../../src/layout.tsx");
    expect(sources.some((source) => source.endsWith("/runtime/server/dispatch.ts"))).toBe(true);
    expect(sources.filter((source) => source.endsWith(".js"))).toEqual([]);
  });

  it("a build with inline maps, or whose map file is missing, bundles all the same", async () => {
    const inline = builtProject("inline-map", "");
    const code = 'export const answer = 42;\nconsole.log("built", answer);\n';
    const map = { version: 3, file: "main.js", sources: ["../src/main.ts"], names: [], mappings: "AAAA;AACA" };
    writeFileSync(join(inline, "dist", "main.js"), `${code}//# sourceMappingURL=data:application/json;base64,${Buffer.from(JSON.stringify(map)).toString("base64")}\n`);
    expect((await runNode(FW, ["bundle"], {}, inline)).code).toBe(0);
    expect((JSON.parse(readFileSync(join(inline, "dist", "bundle", "main.js.map"), "utf8")) as { sources: string[] }).sources).toEqual(["../../src/main.ts"]);

    const missing = builtProject("missing-map", 'console.log("built");\n//# sourceMappingURL=main.js.map\n');
    const ran = await runNode(FW, ["bundle"], {}, missing);
    expect(ran.code).toBe(0);
    expect((await runNode(join(missing, "dist", "bundle", "main.js"), [])).out).toBe("built\n");
  });
});

describe("What fw bundle bundles", () => {
  it("fw, typia and the app's own files and package name; Node's builtins, ws and every other package stay imports", () => {
    for (const bundled of ["./app/Index.js", "/abs/dist/layout.js", "#internal", "fw", "fw/auth", "fw/jsx-runtime", "typia/lib/internal/_assertGuard", "my-app/helpers"]) {
      expect([bundled, isExternal(bundled, "my-app")]).toEqual([bundled, false]);
    }
    for (const kept of ["node:http", "fs", "ws", "ws/wrapper.mjs", "bufferutil", "utf-8-validate", "pg", "@scope/native-thing/sub", "fwx", "typia-extra"]) {
      expect([kept, isExternal(kept, "my-app")]).toEqual([kept, true]);
    }
  });
});

describe("fw bundle's errors", () => {
  it("nothing built: exit 1, naming the missing entry and saying to build first", async () => {
    const project = scratch("unbuilt");
    const { code, out, err } = await runNode(FW, ["bundle", "--project", project]);
    expect(code).toBe(1);
    expect(out).toBe("");
    expect(err).toContain(`fw bundle: ${join(project, "dist", "main.js")} does not exist`);
    expect(err).toContain("npm run build");
    expect(existsSync(join(project, "dist"))).toBe(false);
  });

  it("an unknown flag or a flag without its value: exit 2 with the usage", async () => {
    const unknown = await runNode(FW, ["bundle", "--minify"]);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('fw bundle: unknown argument "--minify"');
    expect(unknown.err).toContain("usage: fw bundle [--project <dir>] [--main <file>] [--out <dir>]");
    const bare = await runNode(FW, ["bundle", "--project", "example", "--out"]);
    expect(bare.code).toBe(2);
    expect(bare.err).toContain("fw bundle: --out needs a value");
  });

  it("rolldown not installed: exit 1 saying how to install it", async () => {
    const project = builtProject("no-rolldown", 'console.log("built");\n');
    const { code, err } = await runNode(FW, ["bundle"], { NODE_OPTIONS: withHook("no-rolldown.mjs") }, project);
    expect(code).toBe(1);
    expect(err).toContain("fw bundle: rolldown is not installed");
    expect(err).toContain("npm install --save-dev rolldown");
    expect(existsSync(join(project, "dist", "bundle"))).toBe(false);
  });

  it("the bundler fails: exit 1 with rolldown's message (no colour codes), and no bundle folder left", async () => {
    const project = builtProject("broken", 'import "./missing.js";\n');
    const { code, err } = await runNode(FW, ["bundle"], {}, project);
    expect(code).toBe(1);
    expect(err).toContain("fw bundle: rolldown could not bundle dist/main.js");
    expect(err).toContain("Could not resolve './missing.js'");
    expect(err).not.toContain("\u001b[");
    expect(err).toContain("npm run build");
    expect(existsSync(join(project, "dist", "bundle"))).toBe(false);
  });

  it("fw's command line loads rolldown only to bundle: `fw --help` (what `fw dev` starts from) lists bundle without loading it", async () => {
    const { code, err } = await runNode(FW, ["--help"], { NODE_OPTIONS: withHook("log-loads.mjs") });
    expect(code).toBe(0);
    expect(err).toContain("usage: fw bundle");
    const loaded = loadedBy(err);
    expect(loaded.some((file) => file.endsWith("/dist/runtime/dev/bundle.js"))).toBe(true);
    expect(loaded.filter((file) => file.includes("rolldown"))).toEqual([]);
  });
});
