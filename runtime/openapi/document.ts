import type { Method } from "../http/method.js";
import type { ApiDescription, OperationDescription, UploadDescription } from "../routing/api-description.js";
import { IMAGE_TYPES, type FileField } from "../http/uploads.js";
import { API } from "../routing/kind.js";
import type { HttpRoute, Route } from "../routing/route.js";

/** What the document says about the app itself (OpenAPI's `info`, and where it is served). */
export interface OpenApiInfo {
  readonly title: string;
  readonly version: string;
  readonly description?: string;
  /** Where the API is served (`[{ url: "https://api.example.com" }]`); none: relative to where the document is. */
  readonly servers?: readonly { readonly url: string; readonly description?: string }[];
}

/** An OpenAPI 3.1 document, as JSON writes it. */
export type OpenApiDocument = Readonly<Record<string, unknown>>;

/** The guard name fw/auth's `apiKey` puts on the routes it covers (a program names itself with `Authorization: Bearer`). */
const API_KEY_GUARD = "apiKey";

/** The guard name fw/auth's per-user tokens put on the routes they cover: `token:<scope>`. */
const TOKEN_GUARD = /^token:(.+)$/;

/** The scope a per-user token must carry to call the route, when a token guards it. */
function tokenScope(route: HttpRoute): string | undefined {
  return route.guard === undefined ? undefined : TOKEN_GUARD.exec(route.guard)?.[1];
}

/** RFC 9457's members, as `JsonProblem` answers them (`application/problem+json`). */
const PROBLEM_SCHEMA = {
  type: "object",
  description: "An RFC 9457 problem, as the handler's JsonProblem(…) answers it.",
  properties: {
    type: { type: "string" },
    title: { type: "string" },
    status: { type: "integer" },
    detail: { type: "string" },
    errors: {
      type: "array",
      description: "The failing places of a JSON body (request.readJson()'s problem).",
      items: { type: "object", properties: { path: { type: "string" }, expected: { type: "string" } }, required: ["path", "expected"] },
    },
  },
  required: ["type", "title", "status", "detail"],
} as const;

/** fw's own refusals: HTML problem pages (spec 2.16: the RFC 9457 data model, not application/problem+json). */
const FW_PAGE = { "text/html": { schema: { type: "string", description: "fw's problem page: the status, its phrase and the detail, framed by the app's layout." } } } as const;

/**
 * The OpenAPI 3.1 document of a table's API routes (`Route.api`, every route a handler taking
 * `ApiRequest` mounts), in match order, as they are served: paths and guards as the table holds
 * them (after `Route.under` and the guards' `through`), each operation's parameters, body and
 * answers from the build's description of its handler (JSON schemas typia derived from the
 * handler's own types), and the failures fw itself answers. A route built by hand, without a
 * description, is listed with what the table knows (its path, its parameters as text).
 */
export async function openApiDocument(routes: readonly Route[], info: OpenApiInfo): Promise<OpenApiDocument> {
  // fw's own endpoints under /fw (fw/live's client, the pickers' script) are not the app's API.
  const api = routes.filter((route): route is HttpRoute => route.case === "http" && route.kind === API && route.method !== "HEAD" && !isFwPath(route));
  const loaded = new Map<() => Promise<ApiDescription>, ApiDescription>();
  for (const route of api) {
    const load = route.described?.load;
    if (load !== undefined && !loaded.has(load)) loaded.set(load, await load());
  }
  const components: Record<string, object> = {};
  for (const description of loaded.values()) {
    for (const [name, schema] of Object.entries(description.schemas.components.schemas ?? {})) components[name] ??= schema;
  }
  const paths: Record<string, Record<string, object>> = {};
  let apiKey = false;
  // The components an upload's text parts were described by: inlined into its form's schema.
  const inlined = new Set<string>();
  let token = false;
  for (const route of api) {
    const description = route.described === undefined ? undefined : loaded.get(route.described.load);
    const operation = description?.operations[route.described?.operation ?? ""];
    const schemaAt = (index: number): object => description?.schemas.schemas[index] ?? {};
    const path = (paths[openApiPath(route)] ??= {});
    if (route.guard === API_KEY_GUARD) apiKey = true;
    if (tokenScope(route) !== undefined) token = true;
    path[route.method.toLowerCase()] = operationOf(route, operation, { at: schemaAt, components, inlined });
  }
  const hasProblems = [...loaded.values()].some((d) => Object.values(d.operations).some((o) => o.answers.some((a) => a.media === "problem")));
  const schemas = withoutUnused({ ...components, ...(hasProblems ? { Problem: PROBLEM_SCHEMA } : {}) }, inlined, paths);
  return {
    openapi: "3.1.0",
    info: { title: info.title, version: info.version, ...(info.description === undefined ? {} : { description: info.description }) },
    ...(info.servers === undefined ? {} : { servers: info.servers }),
    paths,
    components: {
      schemas,
      ...(apiKey || token ? { securitySchemes: securitySchemes(apiKey, token) } : {}),
    },
  };
}

function securitySchemes(apiKey: boolean, token: boolean): Record<string, object> {
  return {
    ...(apiKey ? { apiKey: { type: "http", scheme: "bearer", description: "fw/auth's apiKey: Authorization: Bearer <key>." } } : {}),
    ...(token
      ? {
          token: {
            type: "http",
            scheme: "bearer",
            bearerFormat: "fwt_<selector>.<verifier>",
            description: "A per-user API token (fw/auth), created on /account with a name, an expiry and scopes: Authorization: Bearer <token>. Each operation lists the scope its token must carry.",
          },
        }
      : {}),
  };
}

function isFwPath(route: HttpRoute): boolean {
  return route.path.segments[0]?.type === "literal" && route.path.segments[0].value === "fw";
}

/** `/api/posts/:id` as OpenAPI writes it: `/api/posts/{id}` (a catch-all `*rest` too: `{rest}`). */
function openApiPath(route: HttpRoute): string {
  const segments = route.path.segments.map((s) => (s.type === "literal" ? encodeURIComponent(s.value) : `{${s.name}}`));
  return segments.length === 0 ? "/" : `/${segments.join("/")}`;
}

/** How an operation reaches its schemas: by index in its description, and the components they may point at. */
interface Schemas {
  readonly at: (index: number) => object;
  readonly components: Readonly<Record<string, object>>;
  /** Components whose members an upload's form schema took in: left out of the document when nothing else points at them. */
  readonly inlined: Set<string>;
}

function operationOf(route: HttpRoute, described: OperationDescription | undefined, schemas: Schemas): object {
  const schemaAt = schemas.at;
  const parameters: object[] = route.path.segments.flatMap((segment): object[] => {
    if (segment.type === "literal") return [];
    const given = described?.params[segment.name];
    const schema = given === undefined || given === "string" ? { type: "string" } : schemaAt(given);
    const rest = segment.type === "rest" ? { description: "The rest of the path: it may hold slashes (a catch-all, *name)." } : {};
    return [{ name: segment.name, in: "path", required: true, schema, ...rest }];
  });
  parameters.push(...queryParameters(described, schemas));
  const doc = described?.doc;
  const summary = doc === undefined ? undefined : firstSentence(doc);
  return {
    operationId: operationId(route.method, route),
    ...(summary === undefined ? {} : { summary }),
    ...(doc === undefined || doc === summary ? {} : { description: doc.replace(/\s*\n\s*/g, " ") }),
    ...(parameters.length === 0 ? {} : { parameters }),
    ...(described?.body === undefined ? {} : { requestBody: { required: true, content: { "application/json": { schema: schemaAt(described.body) } } } }),
    ...(described?.upload === undefined ? {} : { requestBody: uploadRequest(route, described.upload, schemas) }),
    responses: responsesOf(route, described, schemaAt),
    ...(route.guard === API_KEY_GUARD ? { security: [{ apiKey: [] }] } : {}),
    // OpenAPI 3.1: a bearer scheme's requirement may list the roles (here, the token's scope) the operation needs.
    ...(tokenScope(route) === undefined ? {} : { security: [{ token: [tokenScope(route)] }] }),
    "x-fw-source": route.source,
  };
}

/**
 * The query parameters a handler declares, one `in: query` parameter per property of their
 * schema (a `$ref` to a component followed), required as the type says; a list is `form`-style
 * exploded (`?tag=1&tag=2`), OpenAPI's default.
 */
function queryParameters(described: OperationDescription | undefined, schemas: Schemas): object[] {
  if (described?.query === undefined) return [];
  const schema = resolved(schemas.at(described.query), schemas);
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, property]) => ({ name, in: "query", required: required.has(name), schema: property }));
}

interface Answer {
  description: string;
  content?: Record<string, object>;
}

/** The handler's answers as its type names them, then fw's own refusals for what the route checks. */
function responsesOf(route: HttpRoute, described: OperationDescription | undefined, schemaAt: (index: number) => object): Record<string, Answer> {
  const responses: Record<string, Answer> = {};
  const add = (status: string, description: string, content?: Record<string, object>): void => {
    const known = responses[status];
    if (known === undefined) responses[status] = { description, ...(content === undefined ? {} : { content }) };
    else {
      known.description = `${known.description} Or: ${description}`;
      if (content !== undefined) known.content = { ...known.content, ...content };
    }
  };
  for (const answer of described?.answers ?? []) {
    const status = String(answer.status);
    if (answer.media === "json") add(status, phrase(answer.status, "The handler's JSON answer"), { "application/json": { schema: schemaAt(answer.schema ?? -1) } });
    else add(status, phrase(answer.status, "The handler's problem"), { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } });
  }
  if (described === undefined || described.other) {
    add("default", "Not described: the handler's return type does not say what it answers (a plain Response). Answer with Json(value) and let the return type say so.");
  }
  const checked = [
    ...(Object.values(described?.params ?? {}).some((p) => p !== "string") ? ["a path parameter that is not of its type"] : []),
    ...(described?.query === undefined ? [] : ["a query parameter that is not of its type (each one named)"]),
    ...(described?.body === undefined ? [] : ["a body that is not JSON of its type (each failing place named)"]),
    ...(described?.upload === undefined
      ? []
      : ["a body that is not a multipart form of its type: a malformed form, a text part not of its type, a file missing, in a field that takes none, of a type its field does not take, or an image that cannot be read (each failing place named)"]),
  ];
  for (const status of described?.thrown ?? []) add(String(status), `${FAILURES[status] ?? "A failure"}: thrown by the handler; fw's problem page.`, FW_PAGE);
  if (checked.length > 0) add("400", `Bad Request: ${checked.join(", or ")}; fw's problem page.`, FW_PAGE);
  if (route.guard !== undefined) add("403", `Forbidden: refused by the route's guard (${route.guard}); fw's problem page.`, FW_PAGE);
  if (described?.body !== undefined) add("413", "Content Too Large: a body over the app's maxBodySize; fw's problem page.", FW_PAGE);
  if (described?.upload !== undefined) {
    const limits = Object.entries(route.files ?? {}).map(([name, field]) => `${name}: ${field.maxBytes} bytes`);
    add("413", `Content Too Large: a file over its field's limit (${limits.join(", ")}), more than one file in a field, or text parts over the app's maxBodySize; fw's problem page.`, FW_PAGE);
  }
  add("500", "Internal Server Error: the handler failed (its log line and the page share an incident id); fw's problem page.", FW_PAGE);
  return responses;
}

/**
 * An upload's request body (issue 40): a `multipart/form-data` form whose text parts are the
 * body type's other fields (typia's schema, its members taken in) and whose file fields are
 * binary parts, each with the types and limit its route takes (the served table's `files`).
 */
function uploadRequest(route: HttpRoute, upload: UploadDescription, schemas: Schemas): object {
  const text = resolved(schemas.at(upload.text), schemas);
  const properties: Record<string, object> = { ...(text.properties ?? {}) };
  const required = [...(text.required ?? [])];
  const encoding: Record<string, object> = {};
  for (const [name, file] of Object.entries(upload.files)) {
    const field = route.files?.[name];
    properties[name] = { type: "string", format: "binary", description: fileDescription(field, file.maxPixels) };
    if (file.required) required.push(name);
    const types = field === undefined ? [] : acceptedTypes(field);
    if (types.length > 0) encoding[name] = { contentType: types.join(", ") };
  }
  const schema = { type: "object", properties, ...(required.length === 0 ? {} : { required }) };
  return { required: true, content: { "multipart/form-data": { schema, ...(Object.keys(encoding).length === 0 ? {} : { encoding }) } } };
}

interface ObjectSchema {
  readonly properties?: Record<string, object>;
  readonly required?: readonly string[];
}

/** A schema, or the component it points at (noted as inlined). */
function resolved(schema: object, schemas: Schemas): ObjectSchema {
  const ref = (schema as { $ref?: unknown }).$ref;
  if (typeof ref !== "string" || !ref.startsWith("#/components/schemas/")) return schema as ObjectSchema;
  const name = ref.slice("#/components/schemas/".length);
  schemas.inlined.add(name);
  return (schemas.components[name] ?? {}) as ObjectSchema;
}

/** The schemas without the inlined components nothing points at any more. */
function withoutUnused(schemas: Record<string, object>, inlined: ReadonlySet<string>, paths: object): Record<string, object> {
  const kept = { ...schemas };
  for (const name of inlined) {
    const ref = JSON.stringify(`#/components/schemas/${name}`);
    const others = Object.entries(kept).filter(([other]) => other !== name);
    if (!JSON.stringify(paths).includes(ref) && !others.some(([, schema]) => JSON.stringify(schema).includes(ref))) delete kept[name];
  }
  return kept;
}

/** The types a file field takes, as its part's `encoding.contentType` lists them. */
function acceptedTypes(field: FileField): string[] {
  if (field.image !== true) return [...field.accept];
  return IMAGE_TYPES.filter((type) => field.accept.length === 0 || field.accept.some((p) => p === type || (p.endsWith("/*") && type.startsWith(p.slice(0, -1)))));
}

function fileDescription(field: FileField | undefined, maxPixels: number | undefined): string {
  if (field === undefined) return "A file.";
  const what = field.image === true ? `An image (${acceptedTypes(field).join(", ")})` : `A file of type ${field.accept.join(" or ")}`;
  const pixels = maxPixels === undefined ? "" : ` and ${maxPixels} pixels`;
  return `${what}, at most ${field.maxBytes} bytes${pixels}: a file part. Its type is read from its bytes, not from the part's Content-Type or name.`;
}

/** The phrases of the statuses fw's failures answer with. */
const FAILURES: Readonly<Record<number, string>> = {
  400: "Bad Request",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Content Too Large",
  422: "Unprocessable Content",
  500: "Internal Server Error",
  501: "Not Implemented",
  503: "Service Unavailable",
};

/** A response's description: the status phrase where it is known. */
function phrase(status: number | "default", what: string): string {
  return status === "default" ? `${what} (its status is left open by its type).` : `${what}.`;
}

/** The first sentence of a doc comment, on one line. */
function firstSentence(doc: string): string {
  const line = doc.replace(/\s*\n\s*/g, " ").trim();
  const end = /[.!?](\s|$)/.exec(line);
  return end === null ? line : line.slice(0, end.index + 1);
}

/** `getApiPostsById`: the method and the path's words, each parameter as `By<Name>`. */
function operationId(method: Method, route: HttpRoute): string {
  const words = route.path.segments.map((s) => (s.type === "literal" ? s.value : `by-${s.name}`));
  const camel = words
    .flatMap((w) => w.split(/[^A-Za-z0-9]+/))
    .filter((w) => w !== "")
    .map((w) => w[0]?.toUpperCase() + w.slice(1))
    .join("");
  return method.toLowerCase() + camel;
}
