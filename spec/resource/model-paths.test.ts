import { describe, expect, it } from "vitest";
import { modelPattern, modelRowPath } from "../../runtime/resource/model-paths.js";
import { fillPath } from "../../runtime/routing/fill-path.js";

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

/** Every row's links are written from a filler made once per model and route (issue 29's Index: 150 links a page). */
describe("modelRowPath", () => {
  it("writes the row's path as fillPath does, and follows the model object when it names another path or key", () => {
    const model = { path: "/posts", key: "id" };
    expect(modelRowPath(model, "Show", 7)).toBe("/posts/7");
    expect(modelRowPath(model, "Edit", 7)).toBe("/posts/7/edit");
    expect(modelRowPath(model, "Confirm", 12)).toBe("/posts/12/delete");
    expect(modelRowPath(model, "Show", "a b")).toBe(fillPath("/posts/:id", { id: "a b" }));
    expect(modelRowPath(model, "Show", 2.5)).toBe("/posts/2.5");
    expect(() => modelRowPath(model, "Show", "..")).toThrow(/the parameter `id` is "\.\."/);
    model.path = "/articles";
    expect(modelRowPath(model, "Edit", 3)).toBe("/articles/3/edit");
    model.key = "slug";
    expect(modelRowPath(model, "Show", "hello")).toBe("/articles/hello");
  });
});
