/**
 * The types of fw/client: what the generated `Api` type (`.fw/api.ts`) is made of, read off each
 * API handler's own signature, and what a call takes and answers. Types only: this module has
 * no code (its imports of fw's core are types, erased from the JavaScript).
 */
import type { Primitive } from "typia";
import type { JsonCheck, JsonError, JsonProblemResponse, JsonResponse } from "../http/json.js";
import type { StoredFile } from "../resource/file-types.js";

/** The request type a handler takes. */
type RequestOf<H> = H extends (request: infer R, ...rest: never[]) => unknown ? R : never;

/** What a handler's answer is: its return type, awaited. */
type Answered<H> = H extends (...args: never[]) => infer R ? Awaited<R> : never;

/**
 * A path parameter as the handler reads it (`ApiRequest<{ id: Id<Post> }>`'s `id`), or `string`
 * when it reads them as text (`ApiRequest` without a params type).
 */
export type ApiParam<H, N extends string> = RequestOf<H> extends { readonly params: infer P } ? (N extends keyof P ? P[N] : string) : string;

/** Query fields as any call may add them, to a route whose handler declares no query parameters. */
export type LooseQuery = Readonly<Record<string, string | number | boolean | readonly (string | number | boolean)[]>>;

/**
 * The query parameters the handler declares (`ApiRequest<P, B, { page?: number; q?: string }>`),
 * or `LooseQuery` when it declares none (it reads the query as text). A `Date` goes as its day.
 */
export type ApiQuery<H> = RequestOf<H> extends { readonly queryParams: infer Q } ? (string extends keyof Q ? LooseQuery : Q) : LooseQuery;

/** The JSON body the handler declares (`JsonRequest<B>`, `ApiRequest<P, B>`), or `never` when it takes none. */
export type ApiBody<H> = RequestOf<H> extends { json(): infer B } ? B : never;

/** Whether a body field's type is a model's file type (`Upload<…>`, `Image<…>`: a `StoredFile` carrying fw's file tag). */
type IsFile<V> = [NonNullable<V>] extends [StoredFile & { readonly "typia.tag"?: infer T }] ? (NonNullable<T> extends { readonly kind: "fw.upload" | "fw.image" } ? true : false) : false;

/**
 * The names of a body's file fields (`cover` of `{ title: string; cover?: Post["cover"] }`): a
 * body with one is an upload, sent as a `multipart/form-data` form.
 */
export type FileKeys<B> = { [K in keyof B]-?: IsFile<B[K]> extends true ? K : never }[keyof B] & string;

/**
 * What a call sends as a body of type `B`: `B` itself (JSON), or for an upload `B` with each file
 * field taking a `Blob` (a `File` in a browser) instead of the stored file the handler gets.
 */
export type SentBody<B> = [FileKeys<B>] extends [never] ? B : { [K in keyof B]: K extends FileKeys<B> ? Blob | Exclude<B[K], NonNullable<B[K]>> : B[K] };

/**
 * The routes of `A` that take an upload, each with its file fields: the generated `uploads`
 * (`.fw/api.ts`), which tells fw/client to send their bodies as forms, a file or not.
 */
export type UploadRoutes<A> = {
  readonly [K in keyof A as A[K] extends { readonly body: infer B } ? ([FileKeys<B>] extends [never] ? never : K) : never]: readonly (A[K] extends { readonly body: infer B } ? FileKeys<B> : never)[];
};

/** The JSON values of the handler's successful answers: `JsonResponse<T, S>`s whose status is 2xx (or left open). */
type Succeeds<R> = R extends JsonResponse<infer T, infer S> ? (number extends S ? T : `${S}` extends `2${string}` ? T : never) : never;

/** The members of an answer type that are neither JSON nor a JSON problem: a page, text, a redirect. */
type Plain<R> = R extends JsonResponse<unknown, number> ? never : R extends JsonProblemResponse<number> ? never : R;

/**
 * What a call answers when it succeeds, read off the handler's return type: its JSON value as it
 * arrives (typia's `Primitive`: a `Date` is its ISO text), and a `RawAnswer` when the handler may
 * also answer something else (a plain `Response`). A handler typed `Promise<Response>` says
 * nothing: its calls answer a `RawAnswer`.
 */
export type ApiAnswer<H> = Primitive<Succeeds<Answered<H>>> | ([Plain<Answered<H>>] extends [never] ? never : RawAnswer);

/** The JSON part of `ApiAnswer<H>`: what the generated `answers` check a call's answer against. */
export type ApiJsonAnswer<H> = Primitive<Succeeds<Answered<H>>>;

/** One API route as the generated `Api` type lists it (under `"GET /api/posts/:id"`). */
export interface ApiRoute {
  readonly params: object;
  readonly body: unknown;
  readonly answer: unknown;
}

/** A successful answer that is not JSON (or whose handler's type does not say): its status, headers and text. */
export interface RawAnswer {
  readonly raw: true;
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

/**
 * What a call may add: its query (typed from the handler's declared query parameters, else any
 * fields), headers (`Authorization: Bearer …` for an API key), an abort signal.
 */
export interface CallOptions<Q = LooseQuery> {
  readonly query?: Q;
  readonly headers?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
}

/**
 * The generated checks of each route's JSON answer (`answers` of `.fw/api.ts`: typia's
 * `createValidate` of its `ApiJsonAnswer`), by operation key. A route absent here is not checked.
 */
export type AnswerChecks<A> = { readonly [K in keyof A]?: JsonCheck };

/** RFC 9457's members, as a refusal carried them (JSON) or fw's HTML problem page shows them. */
export interface ProblemDetails {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly instance?: string;
  /** The failing places of a JSON body (`JsonProblem(read.problem)`). */
  readonly errors?: readonly JsonError[];
}

/** The patterns of `A`'s routes on method `M` (`"/api/posts/:id"`). */
export type PathsOf<A, M extends string> = { [K in keyof A]: K extends `${M} ${infer P}` ? P : never }[keyof A];

/** What a call's path may be: a pattern of `A`'s routes on `M`, or, where there is none, a type that says so in the error. */
type PathOn<A, M extends string> = [PathsOf<A, M>] extends [never] ? `(the app has no ${M} API route)` : PathsOf<A, M>;

/** The route of `A` on method `M` and pattern `P`. */
export type RouteAt<A, M extends string, P extends string> = `${M} ${P}` extends keyof A ? A[`${M} ${P}`] : never;

/** The path parameters argument: present when the pattern has parameters. */
type ParamsArg<R> = R extends { readonly params: infer P } ? (keyof P extends never ? [] : [params: P]) : [];

/** The body argument of a method that may carry one: required when the handler declares one, else left out (`undefined`). */
type BodyArg<R, M extends string> = M extends "GET" ? [] : R extends { readonly body: infer B } ? ([B] extends [never] ? [body?: undefined] : [body: SentBody<B>]) : [];

/** The query parameters of a route of the `Api` type. */
type QueryOf<R> = R extends { readonly query: infer Q } ? Q : LooseQuery;

/** The options argument: required, with its `query`, when the route's query parameters hold a required one. */
type OptionsArg<R> = {} extends QueryOf<R> ? [options?: CallOptions<QueryOf<R>>] : [options: CallOptions<QueryOf<R>> & { readonly query: QueryOf<R> }];

/** A call's arguments after the path: the parameters (if any), the body (methods other than GET), then options. */
export type CallArgs<R, M extends string> = [...ParamsArg<R>, ...BodyArg<R, M>, ...OptionsArg<R>];

/** A call's answer. */
export type CallAnswer<R> = R extends { readonly answer: infer T } ? T : never;

/**
 * A typed client of an app's API, made by `createClient<Api>(baseUrl)`: one method per HTTP
 * method, each taking a pattern of the app's table (`"/api/posts/:id"`), its parameters, its
 * body, and answering what the handler's return type says. A path, parameter or body the app
 * does not have is a type error in the caller. Refusals (4xx, 5xx) and answers that are not what
 * the type says reject with an `ApiError`.
 */
export interface ApiClient<A> {
  get<P extends PathOn<A, "GET">>(path: P, ...args: CallArgs<RouteAt<A, "GET", P>, "GET">): Promise<CallAnswer<RouteAt<A, "GET", P>>>;
  post<P extends PathOn<A, "POST">>(path: P, ...args: CallArgs<RouteAt<A, "POST", P>, "POST">): Promise<CallAnswer<RouteAt<A, "POST", P>>>;
  put<P extends PathOn<A, "PUT">>(path: P, ...args: CallArgs<RouteAt<A, "PUT", P>, "PUT">): Promise<CallAnswer<RouteAt<A, "PUT", P>>>;
  patch<P extends PathOn<A, "PATCH">>(path: P, ...args: CallArgs<RouteAt<A, "PATCH", P>, "PATCH">): Promise<CallAnswer<RouteAt<A, "PATCH", P>>>;
  delete<P extends PathOn<A, "DELETE">>(path: P, ...args: CallArgs<RouteAt<A, "DELETE", P>, "DELETE">): Promise<CallAnswer<RouteAt<A, "DELETE", P>>>;
}
