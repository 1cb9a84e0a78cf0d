import * as path from "node:path";
import type { PrintedHandler } from "./handlers.js";
import type { ModelShape } from "./model-shape.js";
import { pathSegment } from "./model-shape.js";
import type { Model } from "./models.js";
import type { Owner } from "./owner.js";
import { USERS_TABLE, type TableShape } from "./table.js";
import { apiModuleOf } from "./api-module.js";

/** A model whose seven routes the table derives, with what the build read of its type. */
export interface Derived {
  readonly model: Model;
  readonly shape: ModelShape;
  /** The model file as `// from` shows it. */
  readonly shown: string;
  /** The owner field of a model declaring `owned` (spec 2.13). */
  readonly owner?: Owner;
  /** The team field a policy names (issue 41): its rows are a team's. */
  readonly team?: Owner;
  /** The table of a model declaring `table`: its rows live in fw/db. */
  readonly table?: TableShape;
  /** The model declares a `policy` (issue 41): its guard and read rules (with an owner field, `owner`). */
  readonly policy?: true;
}

/** The app's back office as the build read it (back-office.ts: `backOffice(auth, { … })`, issue 41). */
export interface BackOfficeDeclaration {
  /** The module that declares it, and the const it is exported as (`admin`). */
  readonly file: string;
  /** The file as `// from` lines show it. */
  readonly shown: string;
  readonly exportName: string;
  /** Where it is mounted (`/admin`). */
  readonly at: string;
  /** The role that opens it, and every role the app's user type declares (what its forms offer). */
  readonly role: string;
  readonly roles: readonly string[];
  /** The models it shows, by name, as listed. */
  readonly models: readonly string[];
  /** Whether the sign-in it is handed keeps teams (`formSignIn({ …, teams: true })`): its teams pages are then known routes. */
  readonly teams: boolean;
}

/** One handwritten row, ready to print. */
export interface Row {
  readonly file: string;
  /** The file as `// from` shows it. */
  readonly shown: string;
  readonly method: string;
  readonly pattern: string;
  readonly exportName: string;
  readonly handler: PrintedHandler;
  /** The route file exports `guarded`. */
  readonly guarded: boolean;
  /** The derived page it takes the place of (overrides.ts): the model, and the role its stores are read as. */
  readonly overrides?: { readonly model: string; readonly role: string };
  /** It declares no guard and keeps its model's for that role. */
  readonly inheritsGuard?: true;
}

export interface EmitInput {
  readonly out: string;
  readonly fwModule: string;
  /** fw/db's specifier, imported only when a model declares a table. */
  readonly dbModule: string;
  /** fw/live's specifier, imported only when the app has a live page. */
  readonly liveModule?: string;
  /** fw/files' specifier, imported only when a model has a file field. */
  readonly filesModule?: string;
  /** fw/jobs' specifier, imported only when a model's table names users (fw's account jobs). */
  readonly jobsModule?: string;
  readonly capabilitiesFile: string;
  readonly rows: readonly Row[];
  readonly models: readonly Model[];
  /** Models deriving Resource, in fully-qualified-name order. */
  readonly derived: readonly Derived[];
  /** Models deriving Form alone whose form a live page reads (`FormInput<M>`): their ModelSpec only. */
  readonly forms?: readonly Derived[];
  readonly appDirShown: string;
  /** The app's back office (back-office.ts), mounted after the derived routes. */
  readonly backOffice?: BackOfficeDeclaration;
}

/** The generated module's import specifier for `file`, relative to the generated file. */
function specifier(out: string, file: string): string {
  const relative = path.relative(path.dirname(out), file).split(path.sep).join("/").replace(/\.tsx?$/, ".js");
  return relative.startsWith(".") ? relative : `./${relative}`;
}

const q = (text: string): string => JSON.stringify(text);

/** Whether the module calls typia: a model (validator, key decoder), a typed path parameter, or a declared JSON body. */
export function usesTypia(rows: readonly Row[], derived: readonly Derived[]): boolean {
  return (
    derived.length > 0 ||
    rows.some((r) => (r.handler.case === "http" && (r.handler.json === true || r.handler.upload !== undefined || answersJson(r))) || declaresQuery(r) || (r.handler.case !== "ws" && r.handler.params.some((p) => p.decode)))
  );
}

/** A row whose handler takes an upload (issue 40): its route reads a multipart body through `apiUpload`. */
function takesUpload(row: Row): boolean {
  return row.handler.case === "http" && row.handler.upload !== undefined;
}

/** A row whose handler's return type names JSON answers: its route gets typia's typed stringify. */
function answersJson(row: Row): boolean {
  return row.handler.case === "http" && row.handler.answers !== undefined && row.handler.answers.json.length > 0;
}

/**
 * Prints the generated route module: one import per route file, then `table()` with one row
 * per route in match order, each under `// from <file>`. The text depends only on the input,
 * so an unchanged app writes an identical file and nothing is re-emitted.
 */
export function emitModule(input: EmitInput): string {
  const { rows } = input;
  const forms = input.forms ?? [];
  const typia = usesTypia(rows, [...input.derived, ...forms]);
  const usesCapabilities = rows.some((r) => r.handler.case !== "ws" && r.handler.capabilities.some((c) => c.store === undefined));
  // fw/live only when a route file is a live page: an app without one never loads the module.
  const live = rows.some((r) => r.handler.case === "live");
  const scoped = input.derived.some((d) => d.owner !== undefined && d.table === undefined) ? "ScopedStore, " : "";
  const tabled = input.derived.filter((d) => d.table !== undefined);
  const inherits = rows.some((r) => r.inheritsGuard === true);
  const withFiles = input.derived.filter((d) => d.table !== undefined && d.shape.fields.some((f) => f.input === "file"));
  const viewing = rows.some((r) => viewedStores(r, input.derived).length > 0);
  // Models other models point at: each mounts a pick endpoint, and the table the picker's script.
  const referenced = new Set(input.derived.flatMap((d) => d.shape.fields.flatMap((f) => (f.reference === undefined ? [] : [f.reference.model]))));
  const lines: string[] = [
    `// Generated by fw from ${input.appDirShown}. Do not edit: every build rewrites this file.`,
    "// A type error on a row means the handler in the file named above it does not fit: fix it there.",
    `import { assembleTable, FromPath, ${inherits ? "guardAsRole, " : ""}guardRoutes, ${input.derived.length > 0 ? "InMemoryDatabase, Relations, " : ""}${referenced.size > 0 ? "pickerScriptRoute, " : ""}resourceRoutes, Route, ${withFiles.length > 0 ? "uploadScriptRoute, " : ""}${scoped}${viewing ? "viewerCapabilities, withCapabilities, " : ""}type GuardDeclaration, type ModelSpec, type RouteTable, type Store } from ${q(input.fwModule)};`,
  ];
  // typia's transformer replaces every call below with inline code, and it recognises a call by
  // where the function is declared, not by an import; an `import typia from "typia"` would stay
  // in the emitted JS, unused, and load typia's whole index at boot (about 4 MB of idle RSS).
  if (typia) lines.push(`declare const typia: typeof import("typia").default;`);
  // fw/db only when a model has a table: an app without one never loads the database module.
  if (tabled.length > 0) {
    const sqlScoped = tabled.some((d) => d.owner !== undefined) ? "SqlScopedStore, " : "";
    const audit = input.backOffice !== undefined ? "SqlAuditLog, " : "";
    lines.push(`import { processDatabase, ${audit}${sqlScoped}SqlStore, type TableSpec } from ${q(input.dbModule)};`);
  }
  // fw/files only when a model has a file field (issue 40): an app without one never loads it.
  if (withFiles.length > 0) lines.push(`import { modelFiles } from ${q(input.filesModule ?? `${input.fwModule}/files`)};`);
  // fw/jobs' account jobs when a table names users (issue 41): "Download my data" is made by one.
  const namesUsers = tabled.some((d) => d.table?.columns.some((c) => c.references?.table === USERS_TABLE) === true);
  if (namesUsers) lines.push(`import { accountJobs } from ${q(input.jobsModule ?? `${input.fwModule}/jobs`)};`);
  if (live) {
    const publishing = input.derived.length > 0 ? ", publishing" : "";
    lines.push(`import { liveClientRoute, livePageRoutes, liveSocketRoute${publishing} } from ${q(input.liveModule ?? `${input.fwModule}/live`)};`);
  }
  // Typed JSON answers and the API's description (issue 31): their imports, and the lazy loader of .fw/api.ts.
  if (rows.some(answersJson)) lines.push(`import { jsonAnswerMismatch, typedJsonWriter, type JsonAnswerOf } from ${q(input.fwModule)};`);
  if (rows.some(takesUpload)) lines.push(`import { apiUpload } from ${q(input.fwModule)};`);
  if (rows.some(declaresQuery)) lines.push(`import { queryDecoder } from ${q(input.fwModule)};`);
  const api = rows.some((r) => r.handler.case === "http" && r.handler.api);
  if (api) lines.push(`import type { ApiDescription } from ${q(input.fwModule)};`);
  if (usesCapabilities) lines.push(`import * as capabilities from ${q(specifier(input.out, input.capabilitiesFile))};`);
  rows.forEach((row, i) => lines.push(`import * as r${i} from ${q(specifier(input.out, row.file))};`));
  input.derived.forEach((d, i) => lines.push(`import * as m${i} from ${q(specifier(input.out, d.model.file))};`));
  forms.forEach((d, k) => lines.push(`import * as f${k} from ${q(specifier(input.out, d.model.file))};`));
  if (input.backOffice !== undefined) lines.push(`import * as office from ${q(specifier(input.out, input.backOffice.file))};`);
  lines.push("", `/** Models in fully-qualified-name order: ${input.models.length === 0 ? "none" : input.models.map((m) => m.fqn).join(", ")}. */`);
  lines.push(`export const models: readonly string[] = [${input.models.map((m) => q(m.fqn)).join(", ")}];`, "");
  lines.push(...modelSpecs(input.derived, live), ...formSpecs(forms));
  lines.push(
    "/** The tables of the models that declare one (fw/db's `db new` writes the CREATE TABLE of those the database lacks). */",
    tabled.length === 0 ? "export const tables = [] as const;" : `export const tables: readonly TableSpec[] = [${input.derived.flatMap((d, i) => (d.table === undefined ? [] : [`table${i}`])).join(", ")}];`,
    "",
    "/** Every derived model's store, by model name: what a job asks for as `AllRows<Post>` (src/.fw/jobs.ts reads them when it runs). */",
    `export const stores = { ${input.derived.map((d, i) => `${d.model.name}: store${i}`).join(", ")} };`,
    "",
  );
  if (api) {
    lines.push(
      "/** The API routes' OpenAPI description (the generated api.ts), loaded only when the document is asked for. */",
      `const describedApi = (): Promise<ApiDescription> => import(${q(specifier(input.out, apiModuleOf(input.out)))}).then((api) => api.description());`,
      "",
    );
  }
  lines.push("/** The application's route table, in match order (spec 4.2). */", "export function table(): RouteTable {");
  // Every derived model's routes register in one Relations, so a model's pages reach the rows
  // of the models it references and of those referencing it (a new one per table: per call).
  if (input.derived.length > 0) lines.push("  const relations = new Relations();");
  // The jobs that make a user's data export and sweep expired ones, registered with the process (once).
  if (namesUsers) lines.push("  accountJobs();");
  // One fw/files per model with file fields, shared by its pages and the API routes that take uploads for it.
  input.derived.forEach((d, i) => {
    if (withFiles.includes(d)) lines.push(`  const files${i} = modelFiles(table${i});`);
  });
  const modelIndex = new Map(input.derived.map((d, i) => [d.model.name, i]));
  const storeOf = new Map(input.derived.map((d, i) => [d.model.name, `store${i}`]));
  rows.forEach((row, i) => {
    if (row.handler.case !== "ws" && row.handler.capabilities.length > 0) {
      const supplied = row.handler.capabilities.map((c) => `${c.name}: ${c.store === undefined ? `capabilities.${c.name}` : storeOf.get(c.store)}`).join(", ");
      lines.push(`  const c${i} = { ${supplied} };`);
      const viewed = viewedStores(row, input.derived);
      if (viewed.length > 0) lines.push(`  const v${i} = viewerCapabilities(c${i}, [${viewed.map(q).join(", ")}], ${q(readRole(row))});`);
    }
  });
  const modelOf = new Map([...input.derived.map((d, i) => [d.model.name, `model${i}`] as const), ...forms.map((d, k) => [d.model.name, `form${k}`] as const)]);
  rows.forEach((row, i) => {
    if (row.handler.case === "live") lines.push(`  const mount${i} = ${liveMount(row, i, modelOf, viewedStores(row, input.derived).length > 0)};`);
  });
  const guards = [
    ...rows.flatMap((row, i) => (row.guarded ? [`r${i}.guarded`] : [])),
    ...input.derived.map((d, i) => modelGuard(d, i)),
  ];
  lines.push(`  const guards: readonly (GuardDeclaration | undefined)[] = [${guards.join(", ")}];`);
  lines.push("  return assembleTable(guards, [");
  const guardOf = (row: Row): string | undefined => {
    const k = row.inheritsGuard === true && row.overrides !== undefined ? input.derived.findIndex((d) => d.model.name === row.overrides?.model) : -1;
    return k < 0 ? undefined : modelGuard(input.derived[k] as Derived, k);
  };
  rows.forEach((row, i) => lines.push(...inheritedNote(row), `    // from ${row.shown}`, `    ${routeExpression(row, i, viewedStores(row, input.derived).length > 0, guardOf(row), modelIndex)},`));
  input.derived.forEach((d, i) => {
    const options = `m${i}.${d.model.valuePath}.options`;
    // An owned model may name a read scope (`publicWhen`); the type allows it only beside `owned`.
    const owned = d.policy === true ? `owned: ${options}.policy, ` : d.owner === undefined ? "" : `owned: ${options}.owned, publicWhen: ${options}.publicWhen, `;
    const picked = referenced.has(d.model.name) ? "referenced: true, " : "";
    const files = withFiles.includes(d) ? `files: files${i}, ` : "";
    // The guard again, for display: the pages show a role's controls only to whom it admits (a policy's own rules say it).
    const shown = d.policy === true ? "" : `guard: ${modelGuard(d, i)}, `;
    lines.push(
      `    // from ${d.shown} (the derived routes of ${d.model.name}: ${d.model.fqn})`,
      `    ...guardFor(${modelGuard(d, i)}, resourceRoutes(model${i}, store${i}, { actions: ${options}.actions, ${owned}relations, ${picked}${files}${shown}source: ${q(d.shown)} })),`,
    );
  });
  if (input.backOffice !== undefined) lines.push(...backOfficeLines(input.backOffice, input.derived, withFiles, tabled.length > 0));
  if (referenced.size > 0) lines.push("    // the reference pickers' script (fw): search-as-you-type for a form's reference", "    pickerScriptRoute(),");
  if (withFiles.length > 0) lines.push("    // the upload progress script (fw): a form with a file field shows how much was sent", "    uploadScriptRoute(),");
  const sockets = rows.flatMap((row, i) => (row.handler.case === "live" ? [`    // from ${row.shown} (its live socket)`, `    ${guardedBy(row, i, `liveSocketRoute(${pageOf(row, i)}, mount${i})`, guardOf(row))},`] : []));
  if (live) {
    // Spec 4.6: a live application's endpoints come after the table, the carried routes too.
    lines.push("  ]).concat([", ...sockets, "    // the live client (fw/live)", "    liveClientRoute(),");
  }
  lines.push("  ]);", "}", "");
  return lines.join("\n");
}

/**
 * The back office's routes (issue 41): its declaration's `routes`, handed the app's roles (read
 * from the user type), each listed model's spec, files and every one of its rows (the store the
 * table made, as `AllRows`: past the model's policy), and the audit log: in the app's database
 * when its models have tables (one transaction per change and its record), else in memory.
 */
function backOfficeLines(office: BackOfficeDeclaration, derived: readonly Derived[], withFiles: readonly Derived[], tabled: boolean): string[] {
  const models = office.models.flatMap((name) => {
    const i = derived.findIndex((d) => d.model.name === name);
    const d = derived[i];
    if (d === undefined) return [];
    const files = withFiles.includes(d) ? ` files: files${i},` : "";
    return [`      { spec: model${i}, rows: store${i},${files} source: ${q(d.shown)} },`];
  });
  return [
    `    // from ${office.shown} (the back office at ${office.at}, for ${office.role}: every row of ${office.models.length === 0 ? "no model" : office.models.join(", ")}, past their policies)`,
    `    ...office${member(office.exportName)}.routes({`,
    `      roles: [${office.roles.map(q).join(", ")}],`,
    "      models: [",
    ...models.map((line) => `  ${line}`),
    "      ],",
    ...(tabled ? ["      audit: new SqlAuditLog(processDatabase()),"] : []),
    `      source: ${q(office.shown)},`,
    "    }),",
  ];
}

/**
 * An upload route's reader (issue 40): typia's check of the body's text parts (its type read off
 * the handler's signature, the file fields left out), and per file field the model field it is
 * kept for, that model's spec and its fw/files.
 */
function uploadReader(call: string, upload: NonNullable<Extract<PrintedHandler, { case: "http" }>["upload"]>, modelIndex: ReadonlyMap<string, number>): string {
  const omitted = upload.files.map((f) => q(f.name)).join(" | ");
  const text = `typia.http.createValidateQuery<Omit<ReturnType<Parameters<typeof ${call}>[0]["json"]>, ${omitted}>>()`;
  const targets = upload.files.map((file) => {
    const k = modelIndex.get(file.model);
    if (k === undefined) throw new Error(`fw: the upload body of ${call} names ${file.model}["${file.field}"], a model the table does not derive: a bug in fw's transformer.`);
    return `${propertyKey(file.name)}: { model: model${k}, field: ${q(file.field)}, files: files${k}, required: ${file.required} }`;
  });
  return `apiUpload(${text}, { ${targets.join(", ")} })`;
}

function propertyKey(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : q(name);
}

/** The export of a live page's route file, as the table reaches it. */
function pageOf(row: Row, i: number): string {
  return `r${i}${member(row.exportName)}`;
}

/** `.index`, or `["new"]` for a name that cannot follow a dot. */
function member(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) && name !== "new" ? `.${name}` : `[${q(name)}]`;
}

/** A route wrapped by its file's `guarded.through`, when the file exports one; else by the guard it keeps of the model whose page it replaces. */
function guardedBy(row: Row, i: number, route: string, inherited?: string): string {
  if (inherited !== undefined) return `...guardAsRole(${inherited}, ${q(row.overrides?.role ?? "")}, [${route}])`;
  return row.guarded ? `r${i}.guarded.through(${route})` : route;
}

/** A line above the `// from` line of a route in a derived page's place. */
function inheritedNote(row: Row): string[] {
  if (row.overrides === undefined) return [];
  const keeps = row.inheritsGuard === true ? ", under its guard" : "";
  return [`    // in place of ${row.overrides.model}'s ${row.overrides.role}${keeps}`];
}

/**
 * The capabilities of a row that are a model's store read per request as its viewer's rows
 * (viewer-stores.ts): a `Store<M>` of a model with read rules (`owned`, or `readableWith`).
 * `ScopedStore<M>` (every row, asked for by name) is handed as it is.
 */
function viewedStores(row: Row, derived: readonly Derived[]): string[] {
  if (row.handler.case === "ws") return [];
  return row.handler.capabilities.flatMap((c) => {
    if (c.store === undefined || c.scoped === true) return [];
    const model = derived.find((d) => d.model.name === c.store);
    return model !== undefined && (model.owner !== undefined || model.policy === true || model.shape.readableWith !== undefined) ? [c.name] : [];
  });
}

/** The role a row's stores are read as: the page it replaces, else its method's (GET as Index, POST as Create, PUT and PATCH as Update, DELETE as Destroy). */
function readRole(row: Row): string {
  if (row.overrides !== undefined) return row.overrides.role;
  const byMethod: Record<string, string> = { POST: "Create", PUT: "Update", PATCH: "Update", DELETE: "Destroy" };
  return row.handler.case === "live" ? "Index" : (byMethod[row.method] ?? "Index");
}

/** What the table tells a live page (fw/live's LiveMount): id, path, decoders, capabilities, form models, source. */
function liveMount(row: Row, i: number, modelOf: ReadonlyMap<string, string>, viewed: boolean): string {
  const handler = row.handler;
  if (handler.case !== "live") throw new Error("unreachable: only live rows have a mount");
  const mount = `typeof ${pageOf(row, i)}.spec.mount`;
  const decoded = handler.params.filter((p) => p.decode);
  const params = decoded.length === 0 ? "" : ` params: { ${decoded.map((p) => `${p.name}: ${decoder(p.type, `Parameters<${mount}>[0]["params"][${q(p.name)}]`)}`).join(", ")} },`;
  const capabilities = handler.capabilities.length > 0 ? `c${i}` : "{}";
  const perRequest = viewed ? ` capabilitiesOf: v${i},` : "";
  const known = handler.forms.flatMap((f) => {
    const model = modelOf.get(f.model);
    return model === undefined ? [] : [`${/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(f.event) ? f.event : q(f.event)}: ${model}`];
  });
  const forms = known.length === 0 ? "" : ` forms: { ${known.join(", ")} },`;
  const query = handler.query === undefined ? "" : ` query: queryDecoder(${JSON.stringify(handler.query)}, typia.createValidate<Parameters<${mount}>[0]["queryParams"]>()),`;
  return `{ id: ${q(handler.id)}, path: ${q(row.pattern)},${params}${query} capabilities: ${capabilities},${perRequest}${forms} source: ${q(row.shown)} }`;
}

/** A row whose handler (or live page's `mount`) declares its query parameters: the table writes their decoder. */
function declaresQuery(row: Row): boolean {
  return (row.handler.case === "http" || row.handler.case === "live") && row.handler.query !== undefined;
}

/** A path parameter's typia decoder, its type read off the handler's own signature. */
function decoder(type: string, of: string): string {
  return `FromPath.typia(${q(type)}, typia.http.createParameter<${of}>())`;
}

/** A model's guard: `guarded`, else (for an owned model) its `owned` declaration. */
function modelGuard(d: Derived, i: number): string {
  const options = `m${i}.${d.model.valuePath}.options`;
  if (d.policy === true) return `${options}.policy`;
  return d.owner === undefined ? `${options}.guarded` : `(${options}.guarded ?? ${options}.owned)`;
}

/** One ModelSpec per derived model (its fields read at build time, typia's validator and key decoder), and its store. */
function modelSpecs(derived: readonly Derived[], live: boolean): string[] {
  if (derived.length === 0) return [];
  const lines = [
    "/** Wraps the routes a model's `guarded` declaration covers with its `through` (spec 4.5). */",
    "export const guardFor = guardRoutes;",
    "",
    "/** The in-memory models' stores, kept together so references between them hold as a database's would. */",
    "const memory = new InMemoryDatabase();",
    "",
    ...(derived.some((d) => d.table !== undefined)
      ? [
          "/**",
          " * Picks each derived model's store (spec 4.5): a table in the app's database (fw/db's `processDatabase()`,",
          " * the one `DbApp` opens) for a model declaring `table`, else in memory; an owned model's is then scoped by owner.",
          " */",
          "export function storeFor<A>(model: ModelSpec<A>, table?: TableSpec): Store<A> {",
          "  return table === undefined ? memory.store<A>(model) : new SqlStore<A>(processDatabase(), table);",
          "}",
        ]
      : [
          "/** Picks each derived model's store (spec 4.5): in memory, for a model with no table (an owned model's is then scoped by owner). */",
          "export function storeFor<A>(model: ModelSpec<A>): Store<A> {",
          "  return memory.store<A>(model);",
          "}",
        ]),
    "",
  ];
  derived.forEach((d, i) => {
    const type = `m${i}.${d.model.typePath}`;
    lines.push(
      ...specLines(d, `model${i}`, type),
      ...(d.table === undefined ? [] : [`const table${i}: TableSpec = ${JSON.stringify(d.table)};`]),
      storeLine(d, i, type, live ? deleteTopics(derived, d.model.name) : undefined),
      "",
    );
  });
  return lines;
}

/**
 * The topics a delete of `name`'s rows changes besides its own: the models whose references
 * point at it with `cascade` (their rows go too, and so on down) or `set null` (their rows
 * change), in table order. A live page of comments refreshes when a post delete takes them.
 */
function deleteTopics(derived: readonly Derived[], name: string, seen: Set<string> = new Set([name])): string[] {
  const topics: string[] = [];
  for (const d of derived) {
    const rules = d.shape.fields.filter((f) => f.reference?.model === name).map((f) => f.reference?.onDelete);
    if (seen.has(d.model.name) || !rules.some((rule) => rule === "cascade" || rule === "set null")) continue;
    seen.add(d.model.name);
    topics.push(pathSegment(d.model.name));
    if (rules.includes("cascade")) topics.push(...deleteTopics(derived, d.model.name, seen));
  }
  return topics;
}

/** A model's ModelSpec const: its fields read at build time, typia's validator and key decoder. */
function specLines(d: Derived, name: string, type: string): string[] {
  // The form's draft has neither the key, the owner, the team, nor what the server sets.
  // A file field is read from the multipart body and stored before the row is checked (issue 40): not by typia.
  const serverSet = d.shape.fields.filter((f) => f.serverSet !== undefined || f.input === "file").map((f) => f.name);
  const omitted = [d.shape.key, ...(d.owner === undefined ? [] : [d.owner.field]), ...(d.team === undefined ? [] : [d.team.field]), ...serverSet].map(q).join(" | ");
  const fields = d.shape.fields.map((f) => `    ${JSON.stringify(f)},`);
  return [
    `// from ${d.shown}`,
    `const ${name}: ModelSpec<${type}> = {`,
    `  name: ${q(d.model.name)},`,
    `  fqn: ${q(d.model.fqn)},`,
    `  path: ${q(`/${pathSegment(d.model.name)}`)},`,
    `  key: ${q(d.shape.key)},`,
    ...(d.owner === undefined ? [] : [`  owner: ${q(d.owner.field)},`]),
    ...(d.table === undefined ? [] : [`  table: ${q(d.table.name)},`]),
    ...(d.shape.unique === undefined ? [] : [`  unique: ${JSON.stringify(d.shape.unique)},`]),
    ...(d.shape.readableWith === undefined ? [] : [`  readableWith: ${q(d.shape.readableWith)},`]),
    ...(d.shape.sort === undefined ? [] : [`  sort: ${JSON.stringify(d.shape.sort)},`]),
    ...(d.shape.search === undefined ? [] : [`  search: ${JSON.stringify(d.shape.search)},`]),
    "  fields: [",
    ...fields,
    "  ],",
    `  validate: typia.createValidate<Omit<${type}, ${omitted}>>() as ModelSpec<${type}>["validate"],`,
    `  decodeKey: FromPath.typia(${q(`Id<${d.model.name}>`)}, typia.http.createParameter<${type}[${q(d.shape.key)}]>()),`,
    "};",
  ];
}

/** The ModelSpec of each model deriving Form alone that a live page reads a form with (no store, no routes). */
function formSpecs(forms: readonly Derived[]): string[] {
  return forms.flatMap((d, k) => [...specLines(d, `form${k}`, `f${k}.${d.model.typePath}`), ""]);
}

/**
 * A model's store: in memory; for an owned model, scoped by its owner field (spec 2.13, 4.5).
 * In an app with a live page, the store publishes the topic named like the model's path
 * (`posts`) after each write (an owned model's whole table does: every write goes through it).
 */
function storeLine(d: Derived, i: number, type: string, onDelete: readonly string[] | undefined): string {
  const also = onDelete === undefined || onDelete.length === 0 ? "" : `, [${onDelete.map(q).join(", ")}]`;
  const publishing = (store: string): string => (onDelete !== undefined ? `publishing(${store}, ${q(pathSegment(d.model.name))}${also})` : store);
  if (d.owner === undefined) return `const store${i} = ${publishing(d.table === undefined ? `storeFor(model${i})` : `storeFor(model${i}, table${i})`)};`;
  const decode = `FromPath.typia(${q(`Id<${d.owner.model}>`)}, typia.http.createParameter<NonNullable<${type}[${q(d.owner.field)}]>>())`;
  // fw/db's scoped store needs the SqlStore itself (it updates through its rows), so the scoped
  // store is wrapped instead (publishing also wraps the stores its `for` narrows to).
  if (d.table !== undefined) return `const store${i} = ${publishing(`new SqlScopedStore<${type}>(new SqlStore<${type}>(processDatabase(), table${i}), ${decode})`)};`;
  return `const store${i} = new ScopedStore<${type}>(${publishing(`storeFor(model${i})`)}, ${q(d.owner.field)}, ${decode});`;
}

function routeExpression(row: Row, i: number, viewed: boolean, inherited: string | undefined, modelIndex: ReadonlyMap<string, number>): string {
  if (row.handler.case === "live") {
    const routes = `livePageRoutes(${pageOf(row, i)}, mount${i})`;
    if (inherited !== undefined) return `...guardAsRole(${inherited}, ${q(row.overrides?.role ?? "")}, ${routes})`;
    return row.guarded ? `...${routes}.map((route) => r${i}.guarded.through(route))` : `...${routes}`;
  }
  return guardedBy(row, i, row.handler.case === "ws" ? wsRoute(row, i) : httpRoute(row, i, viewed, modelIndex), inherited);
}

function wsRoute(row: Row, i: number): string {
  return `Route.ws(${q(row.pattern)}, r${i}.${row.exportName}, { source: ${q(row.shown)} })`;
}

function httpRoute(row: Row, i: number, viewed: boolean, modelIndex: ReadonlyMap<string, number>): string {
  const handler = row.handler;
  if (handler.case !== "http") throw new Error("unreachable: ws rows are printed by wsRoute");
  const call = `r${i}${member(row.exportName)}`;
  const fn = viewed
    ? `(request) => withCapabilities(v${i}(request), (c) => ${call}(request, c))`
    : handler.capabilities.length > 0
      ? `(request) => ${call}(request, c${i})`
      : call;
  const decoded = handler.params.filter((p) => p.decode);
  const params =
    decoded.length === 0
      ? ""
      : `, params: { ${decoded
          .map((p) => `${p.name}: ${decoder(p.type, `Parameters<typeof ${call}>[0]["params"][${q(p.name)}]`)}`)
          .join(", ")} }`;
  const constructor = handler.api ? "Route.api" : "Route.http";
  // The JSON body's type is read off the handler's own signature, so it need not be exported.
  const json = handler.json === true ? `, json: typia.createValidate<ReturnType<Parameters<typeof ${call}>[0]["json"]>>()` : "";
  const upload = handler.upload === undefined ? "" : `, upload: ${uploadReader(call, handler.upload, modelIndex)}`;
  // The answer type is read off the handler's return type too: typia checks it, and writes what
  // JSON.stringify would not write as the type says (runtime/http/json-writer.ts).
  const answer = `JsonAnswerOf<typeof ${call}>`;
  const stringify = answersJson(row)
    ? `, stringify: typedJsonWriter(typia.createEquals<${answer}>(), typia.json.createAssertStringify<${answer}>(jsonAnswerMismatch(${q(row.shown)})))`
    : "";
  const described = handler.api ? `, described: { operation: ${q(`${row.method} ${row.pattern}`)}, load: describedApi }` : "";
  // The query parameters' type is read off the handler's signature too (`request.queryParams`).
  const query = handler.query === undefined ? "" : `, query: queryDecoder(${JSON.stringify(handler.query)}, typia.createValidate<Parameters<typeof ${call}>[0]["queryParams"]>())`;
  return `${constructor}({ method: ${q(row.method)}, path: ${q(row.pattern)}, handler: ${fn}${params}${json}${upload}${query}${stringify}${described}, source: ${q(row.shown)} })`;
}
