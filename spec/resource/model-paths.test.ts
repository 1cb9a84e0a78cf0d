import { describe, expect, it } from "vitest";
import { modelPattern } from "../../runtime/resource/model-paths.js";

/** The patterns are made once per model object (every row's links are filled from them): a cache that must follow the model. */
describe("modelPattern", () => {
  it("gives each derived route's pattern, and the new one when the same model object names another path or key", () => {
    const model = { path: "/posts", key: "id" };
    expect(["Index", "Create", "New", "Show", "Update", "Destroy", "Edit", "Confirm"].map((route) => modelPattern(model, route as never))).toEqual([
      "/posts",
      "/posts",
      "/posts/new",
      "/posts/:id",
      "/posts/:id",
      "/posts/:id",
      "/posts/:id/edit",
      "/posts/:id/delete",
    ]);
    expect(modelPattern(model, "Show")).toBe("/posts/:id");
    model.path = "/articles";
    expect(modelPattern(model, "Show")).toBe("/articles/:id");
    model.key = "slug";
    expect(modelPattern(model, "Edit")).toBe("/articles/:slug/edit");
    expect(modelPattern({ path: "/posts", key: "id" }, "Show")).toBe("/posts/:id");
  });
});
