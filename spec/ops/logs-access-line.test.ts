import { Writable } from "node:stream";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { jsonLogger } from "../../runtime/log/json-logger.js";
import type { AccessEntry } from "../../runtime/log/logger.js";

// Issue 44 item 1: the access line is written by hand (runtime/log/json-access-line.ts, once per
// request) and must stay the line pino writes for the same members: the same members in the same
// order, the same escaping, an undefined route left out. Each entry goes through fw's JSON logger
// and through pino itself with the logger's level formatter; the lines are compared but for `time`.

/** Lines written to a stream, as a log collector reads them. */
function collector(): { stream: Writable; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      lines.push(...String(chunk).split("\n").filter((line) => line !== ""));
      done();
    },
  });
  return { stream, lines };
}

const ENTRIES: AccessEntry[] = [
  { requestId: "8f14e45f-ceea-467f-a0e6-4b7a3c2d1e0f", method: "GET", path: "/posts/7", route: "/posts/:id", status: 200, ms: 1.234 },
  { requestId: "r-1", method: "POST", path: "/login", route: undefined, status: 404, ms: 0.04 },
  { requestId: "r-2", method: "GET", path: '/a"b\\c/\u00e9t\u00e9/\u{1F600}/\u0007', route: "/:rest*", status: 500, ms: 12.25 },
  { requestId: "r-3", method: "GET", path: `/${"x".repeat(300)}`, route: "/", status: 303, ms: 1234.56 },
  { requestId: "<script>", method: "DELETE", path: "/\u2028\u2029", route: "/", status: 204, ms: 0 },
];

describe("the JSON access line", () => {
  it("is the line pino writes for the same entry, member for member and byte for byte but the time", async () => {
    const ours = collector();
    const logger = await jsonLogger({ level: "info", stacks: false, sink: { out: (line) => ours.lines.push(line), err: (line) => ours.lines.push(line) } });
    const theirs = collector();
    const reference = pino({ level: "info", formatters: { level: (label) => ({ level: label }) } }, theirs.stream);
    for (const entry of ENTRIES) {
      logger.access(entry);
      reference.info({ requestId: entry.requestId, method: entry.method, path: entry.path, route: entry.route, status: entry.status, ms: Math.round(entry.ms * 10) / 10 }, "request");
    }
    await new Promise((done) => setImmediate(done));
    expect(ours.lines).toHaveLength(ENTRIES.length);
    const withoutTime = (line: string) => line.replace(/"time":\d+,/, '"time":0,');
    expect(ours.lines.map(withoutTime)).toEqual(theirs.lines.map(withoutTime));
    for (const line of ours.lines) expect(typeof (JSON.parse(line) as { time: unknown }).time).toBe("number");
    expect(JSON.parse(ours.lines[2]!)).toMatchObject({ path: ENTRIES[2]!.path, status: 500, ms: 12.3 });
    expect(JSON.parse(ours.lines[1]!)).not.toHaveProperty("route");
  });

  it("is not written above info", async () => {
    const lines: string[] = [];
    const logger = await jsonLogger({ level: "warn", stacks: false, sink: { out: (line) => lines.push(line), err: (line) => lines.push(line) } });
    logger.access(ENTRIES[0]!);
    expect(lines).toEqual([]);
  });
});
