import { describe, expect, expectTypeOf, it } from "vitest";
import { createClient, type FileKeys, type SentBody, type UploadRoutes } from "../../runtime/client/index.js";
import type { Image, StoredFile, Upload } from "../../runtime/index.js";

/**
 * fw/client's uploads (issue 40 item 8): a route whose body type names a model's file field takes
 * a `Blob` there, and its calls go as `multipart/form-data` forms. The types here are checked by
 * `npm run typecheck`; what a call sends is read back by the platform's own `Request`, as a
 * server would parse it. End to end against a served app: spec/files/api-uploads.test.ts.
 */
interface NewPost {
  title: string;
  published: boolean;
  rating?: number;
  tags?: string[];
  cover?: Image<{ maxBytes: 2_000_000 }>;
}
interface NewDoc {
  title: string;
  file: Upload<{ accept: "application/pdf"; maxBytes: 100_000 }>;
}
type Api = {
  "POST /api/posts": { params: {}; body: NewPost; answer: { id: number } };
  "PUT /api/docs/:id": { params: { id: number }; body: NewDoc; answer: { id: number } };
  "POST /api/notes": { params: {}; body: { text: string; attachment?: StoredFile }; answer: { id: number } };
};
const uploads: UploadRoutes<Api> = { "POST /api/posts": ["cover"], "PUT /api/docs/:id": ["file"] };

describe("the types of an upload call", () => {
  it("a file field (a model's Upload or Image, by its fw tag) takes a Blob; a plain StoredFile is no file field; a JSON body is as declared", () => {
    expectTypeOf<FileKeys<NewPost>>().toEqualTypeOf<"cover">();
    expectTypeOf<FileKeys<NewDoc>>().toEqualTypeOf<"file">();
    expectTypeOf<FileKeys<{ text: string; attachment?: StoredFile }>>().toEqualTypeOf<never>();
    expectTypeOf<SentBody<NewPost>["cover"]>().toEqualTypeOf<Blob | undefined>();
    expectTypeOf<SentBody<NewDoc>["file"]>().toEqualTypeOf<Blob>();
    expectTypeOf<SentBody<NewPost>["tags"]>().toEqualTypeOf<string[] | undefined>();
    expectTypeOf<SentBody<{ text: string }>>().toEqualTypeOf<{ text: string }>();
    expectTypeOf<keyof UploadRoutes<Api>>().toEqualTypeOf<"POST /api/posts" | "PUT /api/docs/:id">();
  });

  it("the client of an app with uploads needs its `uploads`; a file field takes no string", () => {
    // @ts-expect-error the app has upload routes: `uploads` (from .fw/api.ts) is required
    createClient<Api>("http://app.test");
    const api = createClient<Api>("http://app.test", { uploads, fetch: capture([]) });
    // @ts-expect-error a file field takes a Blob (a File), not a name or the stored file
    void api.post("/api/posts", { title: "x", published: true, cover: "cover.png" });
    // @ts-expect-error a required file field left out
    void api.put("/api/docs/:id", { id: 1 }, { title: "x" });
  });
});

/** A fetch that keeps each request as the platform's Request (which parses a form as a server would), answering 201 JSON. */
function capture(sent: Request[]): typeof fetch {
  return (async (url: string | URL | Request, init?: RequestInit) => {
    sent.push(new Request(url, init));
    return new Response(JSON.stringify({ id: 1 }), { status: 201, headers: { "content-type": "application/json" } });
  }) as typeof fetch;
}

describe("what an upload call sends", () => {
  it("a multipart form: text parts as their text, an array as the part repeated, the File as a file part with its name and bytes; fetch writes the boundary", async () => {
    const sent: Request[] = [];
    const api = createClient<Api>("http://app.test", { uploads, fetch: capture(sent), headers: { authorization: "Bearer k" } });
    const cover = new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], "cover.png", { type: "image/png" });
    expect(await api.post("/api/posts", { title: "Sunrise", published: true, rating: 4.5, tags: ["a", "b"], cover })).toEqual({ id: 1 });
    const request = sent[0] as Request;
    expect(request.headers.get("content-type")).toMatch(/^multipart\/form-data; boundary=/);
    expect(request.headers.get("authorization")).toBe("Bearer k");
    const form = await request.formData();
    expect([form.get("title"), form.get("published"), form.get("rating"), form.getAll("tags")]).toEqual(["Sunrise", "true", "4.5", ["a", "b"]]);
    const file = form.get("cover") as File;
    expect([file.name, file.type, [...new Uint8Array(await file.arrayBuffer())]]).toEqual(["cover.png", "image/png", [0x89, 0x50, 0x4e, 0x47]]);
  });

  it("a call without a file to an upload route is a form all the same (the route reads forms only); a Blob without a name goes as \"blob\"", async () => {
    const sent: Request[] = [];
    const api = createClient<Api>("http://app.test", { uploads, fetch: capture(sent) });
    await api.post("/api/posts", { title: "No cover", published: false });
    await api.put("/api/docs/:id", { id: 7 }, { title: "Scan", file: new Blob(["%PDF-1.4"], { type: "application/pdf" }) });
    expect(sent.map((r) => r.headers.get("content-type")?.split(";")[0])).toEqual(["multipart/form-data", "multipart/form-data"]);
    expect([...(await (sent[0] as Request).formData()).keys()]).toEqual(["title", "published"]);
    expect(((await (sent[1] as Request).formData()).get("file") as File).name).toBe("blob");
  });

  it("a JSON route's body is JSON; a Blob in a body goes as a form even where `uploads` does not say so", async () => {
    const sent: Request[] = [];
    const api = createClient<Api>("http://app.test", { uploads, fetch: capture(sent) });
    await api.post("/api/notes", { text: "hello" });
    expect([sent[0]?.headers.get("content-type"), await sent[0]?.text()]).toEqual(["application/json", '{"text":"hello"}']);
    const untyped = createClient<Record<string, never>>("http://app.test", { fetch: capture(sent) }) as unknown as { post(path: string, body: unknown): Promise<unknown> };
    await untyped.post("/api/raw", { file: new Blob(["x"]) });
    expect(sent[1]?.headers.get("content-type")).toMatch(/^multipart\/form-data; boundary=/);
  });

  it("a field a form cannot carry (an object) is a TypeError naming it, before anything is sent", async () => {
    const sent: Request[] = [];
    const api = createClient<Api>("http://app.test", { uploads, fetch: capture(sent) }) as unknown as { post(path: string, body: unknown): Promise<unknown> };
    await expect(api.post("/api/posts", { title: "x", published: true, meta: { a: 1 } })).rejects.toThrow('fw/client: POST /api/posts takes a form, and its field "meta" holds an object');
    expect(sent).toEqual([]);
  });
});
