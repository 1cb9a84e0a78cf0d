// Save → reloaded latency of `fw dev` on a generated 200-route app on fw/db: the "dev" part of
// `npm run bench`, or on its own:
//
//   npm run build && node bench/dev-reload.mjs [routes=200] [edits=5]
//
// Generates the app under spec/fixtures/_tmp-bench-* (inside the fw package, so `fw` resolves
// by self-reference; git-ignored; removed afterwards): a `DbApp` with a table model (`Item`, its
// migration applied at the first start) on its embedded database (PGlite, in the app's .fw/db),
// and one page per route file. It starts `fw dev` on it, opens the reload socket the way the
// injected client does, then edits one handler `edits` times; that page lists the table's rows,
// so each new page is served with the database. Each sample runs from just before the file
// write until the socket was told `reload` (after the restart the client reconnects, retrying
// every 100 ms as the browser client does) and a GET of the edited page returned the new text.
// Prints each sample, its phases, and the median. KEEP=1 leaves the generated app in place.
import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { WebSocket } from "ws";

const RETRY_MS = 100; // the reload client's quick retry interval (runtime/dev/reload-client.ts)
const EDITED = 1; // src/app/Page1.tsx → GET /page1, the page the samples edit
const root = resolve(import.meta.dirname, "..");
const fixtures = join(root, "spec/fixtures");

/**
 * One page per route file; every fourth one takes a typed path parameter (a typia decoder). The
 * table model and its migration are spec/fixtures/db-dev's (the migration is what fw writes for it).
 */
function generate(dir, ROUTES) {
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ extends: "../tsconfig.fixture.json", compilerOptions: { outDir: "dist", rootDir: "src" }, include: ["src"] }));
  mkdirSync(join(dir, "src/app"), { recursive: true });
  mkdirSync(join(dir, "src/models"), { recursive: true });
  mkdirSync(join(dir, "db/migrations"), { recursive: true });
  const dbDev = join(fixtures, "db-dev");
  copyFileSync(join(dbDev, "src/models/Item.ts"), join(dir, "src/models/Item.ts"));
  copyFileSync(join(dbDev, "db/migrations/0001_create_items.sql"), join(dir, "db/migrations/0001_create_items.sql"));
  writeFileSync(
    join(dir, "src/main.ts"),
    'import { DbApp } from "fw/db";\nimport { table, tables } from "./.fw/routes.js";\n\nprocess.exitCode = await new DbApp({ routes: table(), tables }).main();\n',
  );
  for (let i = 0; i < ROUTES; i++) {
    if (i % 4 === 3) {
      mkdirSync(join(dir, `src/app/items${i}/_id`), { recursive: true });
      writeFileSync(join(dir, `src/app/items${i}/_id/Show.ts`), `import { Ok, type Request, type Response } from "fw";\n\nexport function show(request: Request<{ id: number }>): Response {\n  return Ok(\`item ${i}: \${request.params.id + 1}\`);\n}\n`);
    } else {
      writeFileSync(join(dir, `src/app/Page${i}.tsx`), page(i, "v0"));
    }
  }
}

function page(i, version) {
  if (i === EDITED) {
    // The edited page reads the table: the sample ends once the new code served a page with the database.
    return (
      `import { Ok, type Request, type Response, type Store } from "fw";\nimport type { Item } from "../models/Item.js";\n\n` +
      `export async function page${i}(request: Request, { items }: { items: Store<Item> }): Promise<Response> {\n` +
      `  const { rows } = await items.list({ offset: 0, limit: 10 });\n` +
      `  return Ok(<p>page ${i} ${version} at {request.path}: {String(rows.length)} items</p>);\n}\n`
    );
  }
  return `import { Ok, type Request, type Response } from "fw";\n\nexport function page${i}(request: Request): Response {\n  return Ok(<p>page ${i} ${version} at {request.path}</p>);\n}\n`;
}

/** `fw dev` with its output kept, and a way to wait for a line. */
function startDev(dir) {
  const child = spawn(process.execPath, [join(root, "bin/fw.js"), "dev", "--project", dir], { env: { ...process.env, PORT: "0" } });
  let output = "";
  const waiters = [];
  const onData = (chunk) => {
    output += chunk;
    for (const waiter of [...waiters]) waiter();
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  const count = (pattern) => output.match(pattern)?.length ?? 0;
  /** Resolves with the time the next line matching `pattern` (global) arrived. */
  const next = (pattern) => {
    const seen = count(pattern);
    return new Promise((done) => {
      const waiter = () => {
        if (count(pattern) <= seen) return;
        waiters.splice(waiters.indexOf(waiter), 1);
        done(performance.now());
      };
      waiters.push(waiter);
    });
  };
  return { child, next, output: () => output };
}

/** The reload client's behaviour: reconnect every 100 ms after a close; resolve on `reload`. */
function reloadClient(url, boot) {
  let socket;
  let onReload = () => {};
  const open = () => {
    socket = new WebSocket(`${url.replace(/^http/, "ws")}/fw/reload?boot=${boot}`, { origin: url });
    socket.on("message", (data) => {
      if (String(data) === "reload") onReload(performance.now());
    });
    socket.on("error", () => {});
    socket.on("close", () => setTimeout(open, RETRY_MS));
  };
  open();
  return {
    reloaded: () => new Promise((done) => (onReload = done)),
    stop: () => {
      socket.removeAllListeners("close");
      socket.close();
    },
    rebase: (newBoot) => {
      boot = newBoot;
    },
  };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Runs the measurement; resolves with each sample (ms), their median, and the first start. */
export async function devReload({ routes: ROUTES = 200, edits: EDITS = 5, log = console.log } = {}) {
  const dir = mkdtempSync(join(fixtures, "_tmp-bench-"));
  generate(dir, ROUTES);
  const dev = startDev(dir);
  try {
    const started = performance.now();
    await dev.next(/fw dev: ready on/g);
    const url = /fw dev: ready on (\S+)/.exec(dev.output())[1];
    const firstStartMs = performance.now() - started;
    log(`fw dev serving ${ROUTES} routes on ${url} after ${Math.round(firstStartMs)} ms (first build and start)`);
    const target = EDITED;
    const boot = () => fetch(`${url}/page${target}`).then((r) => r.text()).then((html) => /data-fw-boot="([0-9a-f]+)"/.exec(html)[1]);
    const client = reloadClient(url, await boot());
    await new Promise((r) => setTimeout(r, 500)); // let the socket open and tsc settle (setup only, not measured)
    const samples = [];
    for (let n = 1; n <= EDITS; n++) {
      const built = dev.next(/Found 0 errors/g);
      const ready = dev.next(/fw dev: ready on/g);
      const reloaded = client.reloaded();
      const t0 = performance.now();
      writeFileSync(join(dir, `src/app/Page${target}.tsx`), page(target, `v${n}`));
      const tBuilt = await built;
      const tReady = await ready;
      const tReload = await reloaded;
      const html = await (await fetch(`${url}/page${target}`)).text();
      const tServed = performance.now();
      if (!html.includes(`v${n} at`) || !html.includes("0 items")) throw new Error(`edit ${n} not served with the database:\n${html}`);
      client.rebase(/data-fw-boot="([0-9a-f]+)"/.exec(html)[1]);
      const total = tServed - t0;
      samples.push(total);
      log(
        `edit ${n}: ${total.toFixed(0)} ms  (build done ${(tBuilt - t0).toFixed(0)} ms, app ready ${(tReady - t0).toFixed(0)} ms, ` +
          `reload received ${(tReload - t0).toFixed(0)} ms, new page served ${total.toFixed(0)} ms)`,
      );
      await new Promise((r) => setTimeout(r, 500)); // between samples only: tsc's watcher settles
    }
    log(`median of ${EDITS}: ${median(samples).toFixed(0)} ms save → reloaded (${ROUTES} routes, a page of a table model on PGlite)`);
    client.stop();
    return { routes: ROUTES, database: "PGlite", samples, median: median(samples), firstStartMs };
  } finally {
    dev.child.kill("SIGTERM");
    await new Promise((r) => dev.child.on("close", r));
    if (process.env.KEEP === undefined) rmSync(dir, { recursive: true, force: true });
    else log(`kept ${dir}`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await devReload({ routes: Number(process.argv[2] ?? 200), edits: Number(process.argv[3] ?? 5) });
}
