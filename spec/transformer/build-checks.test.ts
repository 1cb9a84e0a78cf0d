import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { errorLines, FIXTURES, limited, notFws, tspc, type Built } from "../support/tspc.js";

/**
 * Issue 19's build-time checks: wrong apps that used to fail inside the generated module (a
 * typia error, a TS2345 on a row), with advice that did not fit, or not at all. Each fixture is
 * a build that must fail with fw's own diagnostic on the app's file, and nothing else.
 */
const cases: Record<string, readonly RegExp[]> = {
  "param-no-decoder": [
    /src\/app\/events\/_day\/Show\.ts\(3,\d+\): error TS91019: fw: src\/app\/events\/_day\/Show\.ts mounts GET \/events\/:day: `show` reads the path parameter `day` as `Date`, which fw cannot decode from a path segment: it is not a primitive\. A segment is read as one string, number, bigint or boolean/,
    /src\/app\/boxes\/_box\/Show\.ts\(3,\d+\): error TS91019: .*the path parameter `box` as `\{ w: number; \}`.*take it as a string and convert it in the handler/,
    /src\/app\/tags\/_tag\/Show\.ts\(3,\d+\): error TS91019: .*the path parameter `tag` as `number \| undefined`, .*a path parameter is always present: drop the `\?`/,
  ],
  "query-errors": [
    /src\/app\/nested\/Index\.ts\(2,\d+\): error TS91110: fw: src\/app\/nested\/Index\.ts mounts GET \/nested: `index` reads the query parameter `filter` as `\{ title: string; \}`, which fw cannot read from a query's text: it is not one primitive\. A query parameter is read from text as a string, number, boolean or Date/,
    /src\/app\/nullable\/Index\.ts\(2,\d+\): error TS91110: .*the query parameter `page` as `number \| null`, .*drop the `\| null` \(make it optional\)/,
    /src\/app\/mixed\/Index\.ts\(2,\d+\): error TS91110: .*mounts GET \/mixed: `index` reads the query parameter `key` as `string \| number`/,
    /src\/app\/listed\/Index\.ts\(2,\d+\): error TS91110: .*`index` declares its query parameters as `string\[\]`, which is not an object of parameters/,
  ],
  "broken-model": [
    /src\/models\/Note\.ts\(\d+,\d+\): error TS91013: fw: .*the field `tags` of the model Note/,
    /src\/models\/Memo\.ts\(\d+,\d+\): error TS91015: fw: .*the model Memo and its companion must be exported/,
  ],
  "bare-capability": [
    /src\/app\/contact\/Create\.ts\(4,\d+\): error TS91011: fw: src\/app\/contact\/Create\.ts mounts POST \/contact: the second parameter of `create` is `mailer: Mailer`, one capability on its own\. Capabilities come in one object whose members fw supplies by name from src\/capabilities\.ts's exports: write `\{ mailer \}: \{ mailer: Mailer \}`/,
    /src\/app\/clock\/Index\.ts\(4,\d+\): error TS91011: .*the second parameter of `index` is `time: Clock`, one capability on its own\. .*write `\{ clock \}: \{ clock: Clock \}` \(src\/capabilities\.ts exports it as `clock`\)/,
  ],
  "owner-not-user": [
    /src\/models\/Post\.ts\(5,\d+\): error TS91020: fw: src\/models\/Post\.ts: the model Post declares `owned` as `Owned<Post, User>`, but its owner field is `author: Id<Note>`: the owner field holds the key of the user model, User\. Write `author: Id<User>`/,
  ],
  "ws-listener-shape": [
    /src\/app\/chat\/Socket\.ts\(3,\d+\): error TS91021: fw: src\/app\/chat\/Socket\.ts mounts WS \/chat\/socket, but `socket` is not a WebSocket listener: its `message` takes the message as `Uint8Array.*`, but fw hands over text, a `string`.*A listener is `\{ open\?\(connection\), message\(connection, text: string\), close\?\(connection\) \}`: export const socket = /,
    /src\/app\/feed\/Socket\.ts\(3,\d+\): error TS91021: fw: src\/app\/feed\/Socket\.ts mounts WS \/feed\/socket, but `socket` is not a WebSocket listener: it has `onopen`, `onmessage` but no `message`: fw calls `open`, `message` and `close`, not DOM-style `on…` handlers/,
    /src\/app\/ticker\/Socket\.ts\(3,\d+\): error TS91021: .*its `open` takes 2 parameters, but fw calls it with \(connection\)/,
  ],
  "unreachable-route": [
    /src\/app\/docs\/Index\.ts\(1,1\): error TS91022: fw: src\/app\/docs\/Index\.ts mounts GET \/docs, which no request can reach: src\/app\/docs\/__rest\/Show\.ts mounts GET \/docs\/\*rest, and its catch-all matches \/docs too, with `rest` empty, and is tried first \(spec 4\.2: a longer path before a shorter one\)\. Remove src\/app\/docs\/Index\.ts and answer \/docs in src\/app\/docs\/__rest\/Show\.ts when `request\.params\.rest` is ""/,
  ],
};

/** Diagnostics a fixture must not print: follow-ons of its real mistake, or complaints about its correct files. */
const absent: Record<string, readonly RegExp[]> = {
  // a broken model's store is not asked of the capabilities module
  "broken-model": [/TS91004/, /notes\/Recent\.ts/],
  // a named type whose members are the module's exports is a proper object of capabilities
  "bare-capability": [/src\/app\/deps\//, /TS91004/],
  // booleans, literal unions and tagged numbers decode
  "param-no-decoder": [/src\/app\/(flags|sorted|pages)\//],
  // tagged numbers, literal unions, lists of booleans and dates decode from a query
  "query-errors": [/src\/app\/fine\//],
  // naming the user model picks the owner out of two Id fields
  "owner-not-user": [/Task\.ts/],
  // a listener of the right shape, and no advice to write a GET handler
  "ws-listener-shape": [/echo\/Socket\.ts/, /TS91002/, /TS2345/],
  // a literal segment beside the catch-all is tried first
  "unreachable-route": [/Guide\.ts/],
};

const names = Object.keys(cases);
const results = new Map<string, Built>();

beforeAll(async () => {
  const built = await limited(2, names.map((name) => () => tspc(join(FIXTURES, name))));
  names.forEach((name, i) => results.set(name, built[i] as Built));
}, 600_000);

describe("Wrong apps fail the build with fw's own diagnostic, on the file to fix", () => {
  it.each(names)("%s", (name) => {
    const result = results.get(name) as Built;
    expect(result.code, result.output).not.toBe(0);
    for (const line of cases[name] as readonly RegExp[]) expect(result.output).toMatch(line);
    for (const line of absent[name] ?? []) expect(result.output).not.toMatch(line);
  });

  it.each(names)("%s: no error in the generated module, none but fw's", (name) => {
    const output = (results.get(name) as Built).output;
    expect(errorLines(output).length, output).toBeGreaterThan(0);
    expect(notFws(output), output).toEqual([]);
  });
});
