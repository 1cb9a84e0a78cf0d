import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { freshRequestId, requestIdOf } from "../../runtime/log/request-id.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("issue 44 item 1: a request without a well-formed id gets a fresh one", () => {
  it("in a UUID's form, and never the same twice in a process (200,000 in a row)", () => {
    const seen = new Set<string>();
    for (let n = 0; n < 200_000; n++) {
      const id = freshRequestId();
      expect(UUID.test(id)).toBe(true);
      seen.add(id);
    }
    expect(seen.size).toBe(200_000);
  });

  it("another process draws another random part (ids do not repeat across restarts)", () => {
    const script = `import("${new URL("../../dist/runtime/log/request-id.js", import.meta.url).href}").then((m) => console.log(m.freshRequestId()))`;
    const ids = [0, 1].map(() => execFileSync(process.execPath, ["-e", script], { encoding: "utf8" }).trim());
    for (const id of ids) expect(id).toMatch(UUID);
    expect(ids[0]?.slice(0, 27)).not.toBe(ids[1]?.slice(0, 27));
  });

  it("a well-formed id sent is kept, a malformed one replaced by a fresh one", () => {
    expect(requestIdOf("lb-7f3a.42:req/9")).toBe("lb-7f3a.42:req/9");
    for (const sent of ["a b", "x".repeat(129), "", ["a", "b"], undefined]) expect(requestIdOf(sent)).toMatch(UUID);
  });
});
