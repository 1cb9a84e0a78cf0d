import * as path from "node:path";
import type { Row } from "./emit.js";
import type { AnswerStatus } from "./json-answer.js";

export interface ApiEmitInput {
  /** The route module (the API module goes beside it). */
  readonly out: string;
  readonly fwModule: string;
  /** The rows in match order; the API rows are taken from them. */
  readonly rows: readonly Row[];
  readonly appDirShown: string;
}

const q = (text: string): string => JSON.stringify(text);

/** An API row, with the handler analysis narrowed. */
type ApiRow = Row & { readonly handler: Extract<Row["handler"], { case: "http" }> };

function isApiRow(row: Row): row is ApiRow {
  return row.handler.case === "http" && row.handler.api;
}

/**
 * Where a program compiled the API module without typia's transform (plain tsc), `typia` is no
 * value and `answers` would fail with "typia is not defined" (issue 39, item 9): it fails saying
 * what to use instead. A plain build cannot be told apart from tspc's by the types alone (the
 * editor and a type-only import see the same file), so it is said when the module is loaded.
 */
const UNTRANSFORMED_MESSAGE =
  "fw: the app's .fw/api.ts was compiled without typia's transform (plain tsc?), so `answers`, typia's checks of each answer, cannot run. " +
  "Build this program with tspc and typia's transform in compilerOptions.plugins (as the app's tsconfig has it), " +
  "or import only `type Api` from .fw/api.js and call createClient without `answers`.";

const UNTRANSFORMED = [
  "/** `make()`, unless this module was compiled without typia's transform: then `typia` is no value here, and the error says what to use. */",
  "function typiaChecks<T>(make: () => T): T {",
  "  try {",
  "    return make();",
  "  } catch (error) {",
  "    if (!(error instanceof ReferenceError)) throw error;",
  `    throw new Error(${JSON.stringify(UNTRANSFORMED_MESSAGE)});`,
  "  }",
  "}",
  "",
];

/**
 * Prints the app's API module (issue 31): the `Api` type fw/client's calls are typed by, the
 * `answers` checks of their JSON answers, and `description()`, the JSON schemas (typia's, of the
 * very types the handlers declare) the OpenAPI document is put together from. Every type is read
 * off a handler's signature (`typeof a0.show`), so nothing here can drift from the handlers.
 * Kept out of the route module: a client imports it (its types, its checks) without the table.
 */
export function emitApiModule(input: ApiEmitInput): string {
  const rows = input.rows.filter(isApiRow);
  const schemas = new SchemaList();
  const operations = rows.map((row, i) => operation(row, i, schemas));
  const checked = rows.flatMap((row, i) => (checksAnswer(row) ? [`  ${q(key(row))}: typia.createValidate<ApiJsonAnswer<${handlerType(row, i)}>>(),`] : []));
  const typia = checked.length > 0 || schemas.types.length > 0;
  const lines: string[] = [];
  lines.push("", "/** The app's API routes by method and pattern, for fw/client: `createClient<Api>(baseUrl, { answers })`. */", "export type Api = {");
  rows.forEach((row, i) => {
    const names = row.pattern.split("/").filter((s) => s.startsWith(":") || s.startsWith("*")).map((s) => s.slice(1));
    const params = names.map((name) => `${propertyName(name)}: ApiParam<${handlerType(row, i)}, ${q(name)}>`).join("; ");
    lines.push(
      `  /** from ${row.shown} */`,
      `  ${q(key(row))}: { params: {${params === "" ? "" : ` ${params} `}}; body: ApiBody<${handlerType(row, i)}>; answer: ApiAnswer<${handlerType(row, i)}>; query: ApiQuery<${handlerType(row, i)}> };`,
    );
  });
  lines.push("};", "");
  const uploadRows = rows.flatMap((row) => (row.handler.upload === undefined ? [] : [`${q(key(row))}: [${row.handler.upload.files.map((f) => q(f.name)).join(", ")}]`]));
  lines.push(
    "/** The routes that take an upload (a multipart form) and their file fields: fw/client sends their bodies as forms (`createClient<Api>(baseUrl, { uploads })`). */",
    `export const uploads: UploadRoutes<Api> = {${uploadRows.length === 0 ? "" : ` ${uploadRows.join(", ")} `}};`,
    "",
  );
  lines.push("/**", " * Checks of each route's JSON answer (typia's), where its handler's type says it answers JSON alone.", " * typia's transform writes each in place (tspc); compiled without it (plain tsc), importing this stops here, saying what to use.", " */");
  lines.push(checked.length === 0 ? "export const answers: AnswerChecks<Api> = {};" : ["export const answers: AnswerChecks<Api> = typiaChecks(() => ({", ...checked.map((line) => `  ${line}`), "}));"].join("\n"));
  lines.push(
    "",
    "/** The API routes as their types describe them: fw puts the OpenAPI document together from this and the served table. */",
    "export function description(): ApiDescription {",
    "  return {",
    schemas.types.length === 0 ? "    schemas: { components: {}, schemas: [] }," : `    schemas: typia.json.schemas<[\n${schemas.types.map((t) => `      ${t},`).join("\n")}\n    ], "3.1">(),`,
    "    operations: {",
    ...operations.map((o) => `      ${o},`),
    "    },",
    "  };",
    "}",
    "",
    ...(checked.length === 0 ? [] : UNTRANSFORMED),
  );
  const body = lines.join("\n");
  // Only the names the module uses are imported: an app may build with noUnusedLocals.
  const used = (names: readonly string[]): string => names.filter((name) => new RegExp(`\\b${name}\\b`).test(body)).join(", ");
  const head = [
    `// Generated by fw from ${input.appDirShown}. Do not edit: every build rewrites this file.`,
    "// The app's JSON API, read off its API handlers' types: `Api` types fw/client's calls, `answers` checks",
    "// what they answer, and `description()` is what the OpenAPI document (`<app> openapi`) is made of.",
    // From fw's main entry alone, which the app's own files import already: importing fw/client
    // here would bring declaration files into the program that the first build's program lacked,
    // and so change every row's cache key on the next build (row-cache.ts).
    `import type { ${used(["AnswerChecks", "ApiAnswer", "ApiBody", "ApiDescription", "ApiJsonAnswer", "ApiParam", "ApiQuery", "JsonAnswerAt", "UploadRoutes"])} } from ${q(input.fwModule)};`,
    // As in the route module: typia's transformer replaces each call; no import of typia stays behind.
    ...(typia ? [`declare const typia: typeof import("typia").default;`] : []),
    ...rows.map((row, i) => `import type * as a${i} from ${q(specifier(input.out, row.file))};`),
  ];
  return [...head, body].join("\n");
}

/** The types whose schemas the description lists, each once, by index. */
class SchemaList {
  readonly types: string[] = [];

  indexOf(type: string): number {
    const known = this.types.indexOf(type);
    if (known !== -1) return known;
    this.types.push(type);
    return this.types.length - 1;
  }
}

/** An operation's description, as an object literal. */
function operation(row: ApiRow, i: number, schemas: SchemaList): string {
  const handler = row.handler;
  const h = handlerType(row, i);
  const names = row.pattern.split("/").filter((s) => s.startsWith(":") || s.startsWith("*"));
  const params = names.map((segment) => {
    const name = segment.slice(1);
    const decoded = handler.params.find((p) => p.name === name && p.decode) !== undefined;
    return `${propertyName(name)}: ${decoded ? schemas.indexOf(`ApiParam<${h}, ${q(name)}>`) : q("string")}`;
  });
  const body = handler.json === true ? `, body: ${schemas.indexOf(`ApiBody<${h}>`)}` : "";
  const query = handler.query === undefined ? "" : `, query: ${schemas.indexOf(`ApiQuery<${h}>`)}`;
  const upload = handler.upload === undefined ? "" : `, upload: ${uploadDescription(handler.upload, schemas.indexOf(`Omit<ApiBody<${h}>, ${handler.upload.files.map((f) => q(f.name)).join(" | ")}>`))}`;
  const answers = handler.answers;
  const json = (answers?.json ?? []).map((status) => `{ status: ${statusText(status)}, media: "json", schema: ${schemas.indexOf(`JsonAnswerAt<${h}, ${status === "default" ? "number" : status}>`)} }`);
  const problems = (answers?.problems ?? []).map((status) => `{ status: ${statusText(status)}, media: "problem" }`);
  const doc = handler.doc === undefined ? "" : `, doc: ${q(handler.doc)}`;
  const thrown = handler.thrown === undefined ? "" : `, thrown: [${handler.thrown.join(", ")}]`;
  return `${q(key(row))}: { source: ${q(row.shown)}${doc}, params: {${params.length === 0 ? "" : ` ${params.join(", ")} `}}${query}${body}${upload}, answers: [${[...json, ...problems].join(", ")}]${thrown}, other: ${answers === undefined || answers.other} }`;
}

/** An upload's description: the index of its text parts' schema, and its file fields (required, an image's pixel limit). */
function uploadDescription(upload: NonNullable<ApiRow["handler"]["upload"]>, text: number): string {
  const files = upload.files.map((f) => `${propertyName(f.name)}: { required: ${f.required}${f.maxPixels === undefined ? "" : `, maxPixels: ${f.maxPixels}`} }`);
  return `{ text: ${text}, files: { ${files.join(", ")} } }`;
}

/** Whether the client checks the route's answers: its handler's type names JSON answers and nothing else. */
function checksAnswer(row: ApiRow): boolean {
  const answers = row.handler.answers;
  return answers !== undefined && answers.json.length > 0 && !answers.other;
}

function statusText(status: AnswerStatus): string {
  return status === "default" ? q("default") : String(status);
}

/** `"GET /api/posts/:id"`: an operation's key in the Api type, the checks and the description. */
function key(row: Row): string {
  return `${row.method} ${row.pattern}`;
}

/** `typeof a0.show` (or `typeof a0["new"]`). */
function handlerType(row: Row, i: number): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(row.exportName) && row.exportName !== "new" ? `typeof a${i}.${row.exportName}` : `typeof a${i}[${q(row.exportName)}]`;
}

function propertyName(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : q(name);
}

/** The module's import specifier for `file`, relative to it. */
function specifier(out: string, file: string): string {
  const relative = path.relative(path.dirname(out), file).split(path.sep).join("/").replace(/\.tsx?$/, ".js");
  return relative.startsWith(".") ? relative : `./${relative}`;
}
