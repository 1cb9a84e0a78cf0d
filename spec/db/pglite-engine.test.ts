import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "../../runtime/db/index.js";
import { installedPgliteVersion, templateFile } from "../../runtime/db/pglite-template.js";
import { packDirectory, tarEntries, unpackInto } from "../../runtime/db/tar.js";

let dir = "";
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "fw-pglite-engine-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function systemIdentifier(db: Database): Promise<string> {
  return (await db.query<{ id: string }>("SELECT system_identifier::text AS id FROM pg_control_system()")).rows[0]?.id ?? "";
}

// Issue 30 items 1 and 2: the embedded engine's memory (fw's settings) and its first open (a
// copy of the template made by the build instead of initdb's run in WebAssembly).
describe("issue 30: the embedded engine's settings and its new databases", () => {
  it("the build made the template of a new database for the installed PGlite", () => {
    const version = installedPgliteVersion();
    expect(version).toBe(JSON.parse(readFileSync("node_modules/@electric-sql/pglite/package.json", "utf8")).version);
    const file = templateFile(version as string);
    expect(file, "npm run build:fw writes dist/runtime/db/pglite-template-<version>.tar.gz").toBeDefined();
    const paths = [...tarEntries(gunzipSync(readFileSync(file as string)))].map((entry) => entry.path);
    expect(paths).toContain("PG_VERSION");
    expect(paths).toContain("global/pg_control");
    expect(paths.some((path) => path.includes("lock"))).toBe(false);
    expect(templateFile("0.0.0-none")).toBeUndefined();
  });

  it("a new database is a copy of the template (all copies share its system identifier), started with shared_buffers at 16MB; a copy cut short is completed", async () => {
    const first = await openDatabase({ directory: join(dir, "first"), env: {} });
    let id: string;
    try {
      id = await systemIdentifier(first);
      // PGlite's default is PostgreSQL's 128MB, all of it resident from the start.
      expect((await first.query<{ shared_buffers: string }>("SHOW shared_buffers")).rows[0]?.shared_buffers).toBe("16MB");
      await first.script("CREATE TABLE kept (n int); INSERT INTO kept VALUES (1)");
    } finally {
      await first.close();
    }
    // A copy cut short: some files there, PG_VERSION (written last) missing.
    const second = join(dir, "second");
    mkdirSync(join(second, "global"), { recursive: true });
    writeFileSync(join(second, "global", "pg_control"), "torn");
    const db = await openDatabase({ directory: second, env: {} });
    try {
      // initdb would have given this database an identifier of its own.
      expect(await systemIdentifier(db)).toBe(id);
      expect((await db.query("SELECT 1 FROM pg_tables WHERE tablename = 'kept'")).rows).toEqual([]);
      await db.script("CREATE TABLE mine (n int)");
    } finally {
      await db.close();
    }
    // Reopened, it is the same database (the template is copied into a new one only).
    const again = await openDatabase({ directory: second, env: {} });
    try {
      expect((await again.query("SELECT 1 FROM pg_tables WHERE tablename = 'mine'")).rows).toHaveLength(1);
    } finally {
      await again.close();
    }
  }, 120_000);
});

describe("issue 30: the template's archive (ustar, files and folders)", () => {
  it("packs a folder and unpacks it the same, the named file last", () => {
    const from = join(dir, "from");
    mkdirSync(join(from, "base", "1"), { recursive: true });
    mkdirSync(join(from, "empty"));
    writeFileSync(join(from, "PG_VERSION"), "18\n");
    writeFileSync(join(from, "base", "1", "1259"), Buffer.alloc(8192 + 3, 7));
    writeFileSync(join(from, "zero"), "");
    const archive = packDirectory(from);
    expect(archive.length % 512).toBe(0);
    expect(packDirectory(from).equals(archive)).toBe(true);
    const order = [...tarEntries(archive)].map((entry) => `${entry.kind} ${entry.path}`);
    expect(order).toEqual(["file PG_VERSION", "folder base", "folder base/1", "file base/1/1259", "folder empty", "file zero"]);
    const to = join(dir, "to");
    unpackInto(archive, to, "PG_VERSION");
    expect(readFileSync(join(to, "PG_VERSION"), "utf8")).toBe("18\n");
    expect(readFileSync(join(to, "base", "1", "1259")).equals(Buffer.alloc(8192 + 3, 7))).toBe(true);
    expect(readdirSync(join(to, "empty"))).toEqual([]);
    expect(readFileSync(join(to, "zero"), "utf8")).toBe("");
  });

  it("refuses an entry outside its folder, and a link", () => {
    const entry = (name: string, type: string): Buffer => {
      const head = Buffer.alloc(512);
      head.write(name, 0);
      head.write("00000000000\0", 124);
      head.write(type, 156);
      return Buffer.concat([head, Buffer.alloc(1024)]);
    };
    expect(() => unpackInto(entry("../escape", "0"), join(dir, "x"))).toThrow('an entry outside its folder: "../escape"');
    expect(() => unpackInto(entry("a/../../b", "0"), join(dir, "x"))).toThrow("an entry outside its folder");
    expect(() => unpackInto(entry("link", "2"), join(dir, "x"))).toThrow("neither a file nor a folder");
    expect(existsSync(join(dir, "escape"))).toBe(false);
  });
});
