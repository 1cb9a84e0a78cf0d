import { describe, expect, it } from "vitest";
import { answered, nearestRoutes, untypedRoute, type Answering, type KnownRoute } from "../../transformer/known-routes.js";
import { patternMatches, shownPath, writtenSegments, type Piece } from "../../transformer/path-shape.js";

/** Issue 31 item 2: how the build matches a written path (a literal, a template, a `+` chain) against the table's patterns. */
const text = (t: string): Piece => ({ text: t });
const hole = (h: string): Piece => ({ hole: h });
const segments = (...pieces: Piece[]) => writtenSegments(pieces) ?? [];

describe("The build's path matching (TS91050)", () => {
  it("reads the path part of what is written: the query and fragment cut off, a trailing slash ignored", () => {
    expect(writtenSegments([text("/posts/7?page=2#top")])).toEqual([[text("posts")], [text("7")]]);
    expect(writtenSegments([text("/posts/")])).toEqual([[text("posts")]]);
    expect(writtenSegments([text("/")])).toEqual([]);
    expect(writtenSegments([text("/posts/"), hole("id"), text("/edit")])).toEqual([[text("posts")], [hole("id")], [text("edit")]]);
    expect(writtenSegments([text("/files/post-"), hole("id"), text(".txt")])).toEqual([[text("files")], [text("post-"), hole("id"), text(".txt")]]);
    expect(shownPath([text("/posts/"), hole("post.id"), text("/edit?x=1")])).toBe("/posts/${post.id}/edit");
  });

  it("leaves alone what is not a path of the app: external and protocol-relative URLs, fragments, relative paths, empty segments", () => {
    for (const written of ["https://example.com/x", "//cdn.example.com/x", "#top", "posts", "mailto:a@b.c", "/posts//7"]) expect(writtenSegments([text(written)]), written).toBeUndefined();
  });

  it("matches literals (decoded on both sides), parameters, a catch-all (even empty), and substitutions", () => {
    expect(patternMatches("/posts/:id/edit", segments(text("/posts/7/edit")))).toBe(true);
    expect(patternMatches("/posts/:id/edit", segments(text("/posts/7/edti")))).toBe(false);
    expect(patternMatches("/caf%C3%A9", segments(text("/café")))).toBe(true);
    expect(patternMatches("/docs/*rest", segments(text("/docs")))).toBe(true);
    expect(patternMatches("/docs/*rest", segments(text("/docs/a/b/c")))).toBe(true);
    expect(patternMatches("/", segments(text("/")))).toBe(true);
    expect(patternMatches("/posts/:id/edit", segments(text("/posts/"), hole("id"), text("/edit")))).toBe(true);
    expect(patternMatches("/posts/:id/edit", segments(text("/posts/"), hole("id"), text("/edti")))).toBe(false);
    // A substitution inside a segment matches a literal its text around it allows.
    expect(patternMatches("/files/post-7.txt", segments(text("/files/post-"), hole("id"), text(".txt")))).toBe(true);
    expect(patternMatches("/files/page-7.txt", segments(text("/files/post-"), hole("id"), text(".txt")))).toBe(false);
    // A lone substitution may hold slashes: it can stand for several segments, never for none.
    expect(patternMatches("/docs/:section/:page", segments(text("/docs/"), hole("slug")))).toBe(true);
    expect(patternMatches("/docs", segments(text("/docs/"), hole("slug")))).toBe(false);
  });

  it("answers by method: a form posting reaches PUT and DELETE routes (`_method`), a link only GET (HEAD too), the public folder only GET", () => {
    const routes: KnownRoute[] = [untypedRoute("GET", "/about"), untypedRoute("PUT", "/posts/:id"), untypedRoute("*", "/hooks/*rest")];
    const a: Answering = { routes, publicDir: "/nonexistent", prefixes: ["/admin"], publicSeen: new Map() };
    expect(answered(a, segments(text("/about")), ["GET"])).toBe(true);
    expect(answered(a, segments(text("/about")), ["POST", "PUT", "PATCH", "DELETE"])).toBe(false);
    expect(answered(a, segments(text("/posts/3")), ["POST", "PUT", "PATCH", "DELETE"])).toBe(true);
    expect(answered(a, segments(text("/posts/3")), ["GET"])).toBe(false);
    expect(answered(a, segments(text("/hooks/a/b")), ["POST"])).toBe(true);
    expect(answered(a, segments(text("/about")), "any")).toBe(true);
    // Under a literal `Route.under` prefix, the table's paths are answered there too.
    expect(answered(a, segments(text("/admin/about")), ["GET"])).toBe(true);
    expect(answered(a, segments(text("/other/about")), ["GET"])).toBe(false);
  });

  it("names the nearest routes, those taking the method first", () => {
    const routes = ["/posts", "/posts/:id", "/posts/:id/edit", "/notes", "/about"].map((pattern) => untypedRoute("GET", pattern));
    const near = (written: string) => nearestRoutes([...routes, untypedRoute("POST", "/posts")], segments(text(written)), ["GET"], 2).map((r) => `${r.method} ${r.pattern}`);
    expect(near("/postz")).toEqual(["GET /posts", "GET /posts/:id"]);
    expect(near("/nots")).toEqual(["GET /notes", "GET /posts"]);
    expect(near("/posts/7/edti")).toEqual(["GET /posts/:id/edit", "GET /posts/:id"]);
  });
});
