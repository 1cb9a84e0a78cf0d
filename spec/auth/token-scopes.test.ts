import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BUILD_TIMEOUT_MS, errorLines, FIXTURES, notFws, tspc, type Built } from "../support/tspc.js";

// Issue 42, item 4: an API route declares the scope its token needs (`auth.token({ scope })`),
// and the build checks the name against the app's scopes (the keys of formSignIn's `scopes`),
// and that a token guards API routes only.

let built: Built;
beforeAll(async () => {
  built = await tspc(join(FIXTURES, "token-errors"));
}, BUILD_TIMEOUT_MS);

describe("a token guard's scope is checked by the build", () => {
  it("a misspelt scope fails the build at the guard, listing the app's scopes (TS91090)", () => {
    expect(built.code, built.output).not.toBe(0);
    expect(built.output).toMatch(
      /src\/app\/api\/posts\/Create\.ts\(5,\d+\): error TS91090: fw: src\/app\/api\/posts\/Create\.ts \(POST \/api\/posts\): its token guard asks for the scope "post:write", which is not one of the app's scopes \(the app's scopes are "posts:write", "posts:read"\)\. Write one of them as a literal: auth\.token\(\{ scope: "posts:write" \}\), or add it to formSignIn's scopes\./,
    );
  });

  it("a scope that is no literal (a string variable) fails the build the same way", () => {
    expect(built.output).toMatch(/src\/app\/api\/notes\/Index\.ts\(6,\d+\): error TS91090: fw: .*asks for the scope `string`, which is not one of the app's scopes/);
  });

  it("a browser page guarded by a token fails the build (TS91091): tokens never work there", () => {
    expect(built.output).toMatch(/src\/app\/Index\.ts\(5,\d+\): error TS91091: fw: src\/app\/Index\.ts \(GET \/\) is a browser route guarded by a per-user token \(scope "posts:write"\), but a token never works there.*Guard it with auth\.guarded\(\), or make it an API route/);
  });

  it("the guard written right is quiet, and every error is fw's own", () => {
    expect(errorLines(built.output), built.output).toHaveLength(3);
    expect(built.output).not.toContain("api/posts/Index.ts");
    expect(notFws(built.output), built.output).toEqual([]);
  });
});
