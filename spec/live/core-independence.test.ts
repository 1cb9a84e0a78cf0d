import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";

const RUNTIME = resolve("runtime");
const LIVE = join(RUNTIME, "live");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path === LIVE ? [] : sources(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** Every module specifier a file imports or re-exports, statically, dynamically or for types. */
function specifiers(text: string): string[] {
  return [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g)].map((m) => m[1] as string);
}

describe("issue 23: fw/live is optional: the HTTP core (and fw/auth, fw/db) never imports it", () => {
  it("no file under runtime/ outside runtime/live/ imports fw/live or anything in runtime/live/, not even a type", () => {
    const files = sources(RUNTIME);
    expect(files.length).toBeGreaterThan(40);
    const offending = files.flatMap((file) =>
      specifiers(readFileSync(file, "utf8"))
        .filter((spec) => spec === "fw/live" || (spec.startsWith(".") && resolve(file, "..", spec).startsWith(LIVE + sep)))
        .map((spec) => `${relative(RUNTIME, file)} imports ${spec}`),
    );
    expect(offending).toEqual([]);
  });

  it("the check sees an import of the live module when there is one", () => {
    expect(specifiers('import { live } from "../live/index.js";\nimport type { LiveMount } from "../live/routes.js";\nexport * from "fw/live";')).toEqual([
      "../live/index.js",
      "../live/routes.js",
      "fw/live",
    ]);
  });
});
