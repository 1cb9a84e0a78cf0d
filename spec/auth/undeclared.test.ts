import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, tspc, type Built } from "../support/tspc.js";

// spec 2.12, issue 39: an app that imports fw/auth (the fixture names no `auth` plugin option: the
// check cannot be left out) fails the build for a page or model without a declaration; a
// declaration that exists (Guarded.public, a guard, `owned`) is used.
let built: Built;

beforeAll(async () => {
  built = await tspc(join(FIXTURES, "auth-undeclared"));
});

describe("2.12 In an app that uses fw/auth, every page and model declares its guard, with no option to turn it on (against the real module)", () => {
  it("a page with no `guarded` export fails the build, naming the file, the route and the fix", () => {
    expect(built.code).not.toBe(0);
    expect(built.output).toMatch(/src\/app\/Index\.ts\(1,1\): error TS91009: fw: src\/app\/Index\.ts \(GET \/\) declares no `guarded`\. The app uses the auth module \(fw\/auth\), so every page says who may reach it: export const guarded = Guarded\.public; \(open to everyone\) or a guard from fw\/auth/);
  });

  it("a model with neither `guarded` nor `owned` fails the build, naming the model and the fix", () => {
    expect(built.output).toMatch(/src\/models\/Note\.ts\(\d+,\d+\): error TS91009: fw: the model Note declares no `guarded`.*add `guarded: Guarded\.public`/);
  });

  it("pages declaring Guarded.public or the form sign-in's guard, and a model declaring `owned`, are accepted", () => {
    expect(built.output.match(/error TS91009/g)).toHaveLength(2);
    expect(built.output).not.toMatch(/Open\.ts|Members\.ts|Memo\.ts/);
  });
});
