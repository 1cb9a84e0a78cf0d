import { describe, expect, it } from "vitest";
import { isMethod, METHODS } from "../../runtime/http/method.js";

// Spec 2.18: fw models seven methods; anything else is answered 501 before routing.
describe("isMethod", () => {
  it.each([...METHODS])("%s is modelled", (method) => {
    expect(isMethod(method)).toBe(true);
  });

  it.each(["TRACE", "CONNECT", "PROPFIND", "get", "Post", "", "GET "])("%j is not (case-sensitive, exact)", (name) => {
    expect(isMethod(name)).toBe(false);
  });
});
