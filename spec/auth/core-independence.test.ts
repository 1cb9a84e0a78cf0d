import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";

const RUNTIME = resolve("runtime");
const AUTH = join(RUNTIME, "auth");
/** fw/db, an optional module beside the core, implements fw/auth's `Users` (SqlUsers): it may import auth's types, nothing else. */
const DB = join(RUNTIME, "db");
/** fw/admin, the back office (issue 41), an optional module over fw/auth: it too may import auth's types (it is handed the app's sign-in), nothing else. */
const ADMIN = join(RUNTIME, "admin");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path === AUTH ? [] : sources(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** Every module specifier a file imports or re-exports, statically or dynamically. */
function specifiers(text: string): string[] {
  const found = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g)].map((m) => m[1] as string);
  return found;
}

/** The text without its `import type … from "…";` statements (erased at compile time: nothing is loaded). */
function withoutTypeImports(text: string): string {
  return text.replace(/\bimport\s+type\b[^;]*?\bfrom\s*["'][^"']+["'];?/g, "");
}

describe("spec 5.2 The HTTP core contains no guard and never imports the auth module", () => {
  it("no file under runtime/ outside runtime/auth/ imports fw/auth or anything in runtime/auth/ (fw/db and fw/admin: types only)", () => {
    const files = sources(RUNTIME);
    expect(files.length).toBeGreaterThan(40);
    const offending = files.flatMap((file) =>
      specifiers(file.startsWith(DB + sep) || file.startsWith(ADMIN + sep) ? withoutTypeImports(readFileSync(file, "utf8")) : readFileSync(file, "utf8"))
        .filter((spec) => spec === "fw/auth" || (spec.startsWith(".") && resolve(file, "..", spec).startsWith(AUTH + sep)))
        .map((spec) => `${relative(RUNTIME, file)} imports ${spec}`),
    );
    expect(offending).toEqual([]);
  });

  it("fw/db's type imports are let through, its value imports are not", () => {
    expect(specifiers(withoutTypeImports('import type { Users } from "../auth/users.js";\nimport { x } from "../auth/users.js";'))).toEqual(["../auth/users.js"]);
  });

  it("the check sees an import of the auth module when there is one", () => {
    expect(specifiers('import { Guarded } from "../auth/index.js";\nexport * from "fw/auth";')).toEqual(["../auth/index.js", "fw/auth"]);
  });
});
