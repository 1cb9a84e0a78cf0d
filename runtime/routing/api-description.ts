/**
 * What the build writes about an app's API routes, for its OpenAPI document (the generated
 * `.fw/api.ts`, its `description()`): JSON schemas typia derived from the handlers' own types,
 * and per operation which of them are its path parameters, its body and its answers. The
 * document itself is put together at run time from the served table (runtime/openapi/), so it
 * follows `Route.under` and guards as served.
 */
export interface ApiDescription {
  /**
   * `typia.json.schemas<[...], "3.1">()`: the named schemas (`components.schemas`, referenced as
   * `#/components/schemas/Name`), and one schema per listed type, in order (what the operations'
   * indexes point at). Schemas are JSON Schema 2020-12 objects, read as opaque here.
   */
  readonly schemas: {
    readonly components: { readonly schemas?: Readonly<Record<string, object>> };
    readonly schemas: readonly object[];
  };
  /** By operation key: `"GET /api/posts/:id"` (the method and the pattern as the route file mounts it). */
  readonly operations: Readonly<Record<string, OperationDescription>>;
}

/** One API route as its handler's types describe it. */
export interface OperationDescription {
  /** The route file, as `routes` shows it. */
  readonly source: string;
  /** The handler's doc comment, as written. */
  readonly doc?: string;
  /** Each path parameter: the index of its schema, or "string" for one the handler reads as text. */
  readonly params: Readonly<Record<string, number | "string">>;
  /** The index of the query parameters' schema (an object: each property a parameter), when the handler declares them. */
  readonly query?: number;
  /** The index of the JSON body's schema, when the handler declares one (`JsonRequest<B>`). */
  readonly body?: number;
  /** A body naming a model's file field (issue 40): a multipart form. */
  readonly upload?: UploadDescription;
  /** The answers the handler's return type names. */
  readonly answers: readonly AnswerDescription[];
  /** Statuses of fw's failures the handler's body throws (`throw new NotFound(…)`): fw's problem pages. */
  readonly thrown?: readonly number[];
  /** The return type also holds a plain `Response` (text, a page, a redirect, no body…): not described. */
  readonly other: boolean;
}

/** A multipart body: its text parts' schema (the body's type without its file fields), and its file fields by name. */
export interface UploadDescription {
  /** The index of the text parts' schema. */
  readonly text: number;
  /** Each file field: required by the body's type; an image's pixel limit. Its bytes and types are the route's `files`. */
  readonly files: Readonly<Record<string, { readonly required: boolean; readonly maxPixels?: number }>>;
}

/** A status the handler answers with (or "default" where its type says `number`), and what it carries. */
export interface AnswerDescription {
  readonly status: number | "default";
  /** `Json(value)` (application/json), or `JsonProblem(problem)` (application/problem+json). */
  readonly media: "json" | "problem";
  /** The index of the JSON answer's schema (`json` only). */
  readonly schema?: number;
}
