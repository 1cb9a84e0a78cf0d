import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";

const RUNTIME = resolve("runtime");
const DB = join(RUNTIME, "db");
const AUTH = join(RUNTIME, "auth");
// fw/jobs keeps its queue in the app's database: it sits above fw/db (docs/decisions.md, the code's floors).
const JOBS = join(RUNTIME, "jobs");
// fw/files records its files and runs its jobs in the app's database (issue 40): above fw/db and fw/jobs.
const FILES = join(RUNTIME, "files");
// fw/cache keeps its entries in the app's database by default (issue 44): above fw/db too.
const CACHE = join(RUNTIME, "cache");
// fw/testing reaches a test app's database (issue 43's factories): types, and fw/db loaded only when a test uses it.
const TESTING = join(RUNTIME, "testing");

function sources(dir: string, skip: readonly string[]): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return skip.includes(path) ? [] : sources(path, skip);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** Every module specifier a file imports or re-exports, statically or dynamically, `import type` marked. */
function imports(text: string): { spec: string; typeOnly: boolean; dynamic: boolean }[] {
  return [...text.matchAll(/(\bimport\s+type\b[^;]*?\bfrom\s*|\bfrom\s*|\bimport\s*(\()?\s*)["']([^"']+)["']/g)].map((m) => ({
    spec: m[3] as string,
    typeOnly: (m[1] as string).startsWith("import type") || /^import\s+type\b/.test(m[1] as string),
    dynamic: m[2] === "(",
  }));
}

describe("issue 20: fw/db is optional: the HTTP core never imports it, and it loads each engine only when used", () => {
  it("no file under runtime/ outside runtime/db/, runtime/auth/, runtime/jobs/, runtime/files/, runtime/cache/ and runtime/testing/ imports fw/db or anything in runtime/db/", () => {
    const files = sources(RUNTIME, [DB, AUTH, JOBS, FILES, CACHE, TESTING]);
    expect(files.length).toBeGreaterThan(40);
    const offending = files.flatMap((file) =>
      imports(readFileSync(file, "utf8"))
        .filter(({ spec }) => spec === "fw/db" || (spec.startsWith(".") && resolve(file, "..", spec).startsWith(DB + sep)))
        .map(({ spec }) => `${relative(RUNTIME, file)} imports ${spec}`),
    );
    expect(offending).toEqual([]);
  });

  it("runtime/testing/ imports runtime/db/ only for types or dynamically: a test of an app without fw/db never loads it", () => {
    const reaches = sources(TESTING, []).flatMap((file) =>
      imports(readFileSync(file, "utf8"))
        .filter(({ spec }) => spec === "fw/db" || (spec.startsWith(".") && resolve(file, "..", spec).startsWith(DB + sep)))
        .map((found) => ({ ...found, file: relative(RUNTIME, file) })),
    );
    expect(reaches.length).toBeGreaterThan(0);
    expect(reaches.filter(({ typeOnly, dynamic }) => !typeOnly && !dynamic).map(({ file, spec }) => `${file} imports ${spec}`)).toEqual([]);
  });

  it("runtime/db/ imports pg and PGlite only dynamically (or for types), so an app loads one engine", () => {
    const offending = sources(DB, []).flatMap((file) =>
      imports(readFileSync(file, "utf8"))
        .filter(({ spec, typeOnly, dynamic }) => (spec === "pg" || spec.startsWith("@electric-sql/")) && !typeOnly && !dynamic)
        .map(({ spec }) => `${relative(RUNTIME, file)} imports ${spec} statically`),
    );
    expect(offending).toEqual([]);
  });

  it("the checks see the imports they look for", () => {
    expect(imports('import { SqlStore } from "../db/index.js";\nexport * from "fw/db";').map((i) => i.spec)).toEqual(["../db/index.js", "fw/db"]);
    expect(imports('import pg from "pg";\nimport type { Pool } from "pg";\nawait import("@electric-sql/pglite");')).toEqual([
      { spec: "pg", typeOnly: false, dynamic: false },
      { spec: "pg", typeOnly: true, dynamic: false },
      { spec: "@electric-sql/pglite", typeOnly: false, dynamic: true },
    ]);
  });
});
