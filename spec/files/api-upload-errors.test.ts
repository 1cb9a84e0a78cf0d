// Issue 40 item 8: an API body that names a file field must name a model's own (so the build knows
// its limits and the table and column a stored file is recorded for), its other fields must be
// text parts, and it is read with upload(), not json(); a JSON body holds no stored file (a caller
// would name any file by its key). Each mistake is TS91082 at its place in
// spec/fixtures/upload-errors; the two routes written right (a Pick of the model, its field
// through an alias) are quiet.
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { errorLines, FIXTURES, notFws, tspc, type Built } from "../support/tspc.js";

let built: Built;

describe("issue 40: an upload body the build refuses (TS91082)", () => {
  beforeAll(async () => {
    built = await tspc(join(FIXTURES, "upload-errors"));
  });

  it("names each mistake at its place, with the fix", () => {
    const lines = errorLines(built.output);
    const expected = [
      /^src\/app\/api\/inline\/Create\.ts\(5,3\): error TS91082: fw: src\/app\/api\/inline\/Create\.ts mounts POST \/api\/inline: the upload body of `create`: its field `cover` is `Image<\{ maxBytes: 1000; \}> \| undefined`, a file type that is no model's file field\. fw stores an upload for a model's file field, recording the table and column that may hold it \(so a file no row takes is swept\), with that field's limits: name the model's own field, `cover\?: Post\["cover"\]` \(or `Pick<Post, "title" \| "cover">`\)\.$/,
      /^src\/app\/api\/json\/Create\.ts\(10,15\): error TS91082: fw: .*: `request\.json\(\)` reads a JSON body, but the request's body type names the file field `cover`, which makes it an upload \(a multipart form\): read it with `await request\.upload\(\)`, which stores each file\.$/,
      /^src\/app\/api\/nested\/Create\.ts\(6,3\): error TS91082: fw: .*: `create` takes an upload \(its body names the file field `cover`\), a multipart form whose other fields are text parts, but `meta` is `\{ tag: string; \}`\. A text part carries a string, a number, a boolean \(or a union of their literals\), or an array of them/,
      /^src\/app\/api\/plain\/Create\.ts\(8,21\): error TS91082: fw: .*: `request\.upload\(\)` reads an upload \(a multipart form\), but the request's body type names no model's file field, so the body is JSON: read it with `request\.json\(\)`\./,
      /^src\/app\/api\/forged\/Create\.ts\(4,1\): error TS91082: fw: .*: `create` takes a JSON body holding a stored file at \$\.attachment: JSON would let a caller name any stored file by its key and give it to a row\. A file comes in as an upload: name the model's own field, `cover\?: Post\["cover"\]`/,
      /^src\/app\/api\/many\/Create\.ts\(5,1\): error TS91082: fw: .*: `create` takes a JSON body holding a stored file at \$\.posts\[\]\.cover:/,
      /^src\/app\/api\/sketch\/Create\.ts\(4,68\): error TS91082: fw: .*: its field `image` names `Sketch\["image"\]`, but Sketch has no table \(or derives no Resource\), so no row could hold the file\. Give Sketch a table/,
    ];
    for (const pattern of expected) expect(lines.some((line) => pattern.test(line)), `${pattern}\n${built.output}`).toBe(true);
    expect(lines, built.output).toHaveLength(expected.length);
  });

  it("the routes written right (Pick<Post, …>, NonNullable<Post[\"cover\"]> through an alias) are quiet, and no error comes from typia or the generated module", () => {
    expect(built.output).not.toMatch(/api\/(good|alias)\//);
    expect(notFws(built.output), built.output).toEqual([]);
  });
});
