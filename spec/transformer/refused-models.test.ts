import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { errorLines, FIXTURES, limited, notFws, tspc, type Built } from "../support/tspc.js";

/**
 * Issue 39 item 10: a refused model is the cause, and the build says so first. Each fixture is
 * the tutorial's app (Task, with owned rows in a table; Comment pointing at it; a page asking
 * for Task's store, a live page counting its rows and listening to "tasks", links to all of
 * them) with one mistake in Task that refuses it. The build used to bury that mistake under
 * 15-28 errors that only followed from it: links to Task's pages and to the pages asking for its
 * store, Comment's reference to a model "with no table", the live page's topic "nothing
 * publishes", path("/tasks/:id") refused by TypeScript.
 */
const causes: Record<string, RegExp> = {
  "refused-model-labels": /^src\/models\/Task\.ts\(13,3\): error TS91013: fw: src\/models\/Task\.ts: the field `labels` of the model Task has the type `string\[\]`, which fw cannot put in a form\./,
  "refused-model-secret": /^src\/models\/Task\.ts\(13,3\): error TS91018: fw: src\/models\/Task\.ts: the field `_secret` of the model Task starts with "_"/,
  "refused-model-bytes": /^src\/models\/Task\.ts\(13,3\): error TS91013: fw: src\/models\/Task\.ts: the field `attachment` of the model Task has the type `Uint8Array<ArrayBufferLike>`, which fw cannot put in a form\./,
  "refused-model-ondelete": /^src\/models\/Task\.ts\(16,\d+\): error TS91041: fw: src\/models\/Task\.ts: the onDelete of Task names `title`, which is not a reference field/,
};

/** The app's real mistakes besides the model's, which the build must still report, after the cause. */
const independent: readonly RegExp[] = [
  // A mistyped link to one of the refused model's pages: its routes are still known, and named as the nearest.
  /^src\/app\/Index\.tsx\(16,15\): error TS91050: fw: src\/app\/Index\.tsx: <a href> names \/tasks\/3\/edti, which no route of the app answers to GET\. Nearest: GET \/tasks\/:id\/edit, /,
  /^src\/app\/Index\.tsx\(17,15\): error TS91050: fw: src\/app\/Index\.tsx: <a href> names \/abuot, which no route of the app answers to GET\./,
];

/** The follow-ons the build used to print. */
const followOns: readonly RegExp[] = [/names \/(tasks|comments|live)(\/(new|open|3|3\/edit))?, which/, /not a model with a table/, /No topic is published/, /nothing publishes/, /TS2345/, /Comment\.ts/, /Live\.tsx/, /Open\.tsx/, /main\.tsx/];

const names = Object.keys(causes);
const results = new Map<string, Built>();

beforeAll(async () => {
  const built = await limited(2, names.map((name) => () => tspc(join(FIXTURES, name))));
  names.forEach((name, i) => results.set(name, built[i] as Built));
}, 600_000);

describe("issue 39 item 10: a refused model's diagnostic comes first, and its follow-ons are held back", () => {
  it.each(names)("%s: the cause first, then the app's independent mistakes, and nothing else", (name) => {
    const { code, output } = results.get(name) as Built;
    expect(code, output).not.toBe(0);
    const lines = errorLines(output);
    expect(lines[0], output).toMatch(causes[name] as RegExp);
    expect(lines.slice(1), output).toHaveLength(independent.length);
    independent.forEach((line, i) => expect(lines[i + 1], output).toMatch(line));
  });

  it.each(names)("%s: none of the follow-ons, no error in the generated modules", (name) => {
    const { output } = results.get(name) as Built;
    for (const line of followOns) expect(output).not.toMatch(line);
    expect(notFws(output), output).toEqual([]);
  });
});
