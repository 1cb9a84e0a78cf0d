import type * as ts from "typescript";
import { appPaths } from "./app-paths.js";
import { checkCapabilities } from "./capabilities.js";
import { shown, type FwConfig } from "./config.js";
import { Codes, type Finding } from "./diagnostics.js";
import { emitModule, usesTypia, type Derived, type Row } from "./emit.js";
import { apiModuleOf } from "./api-module.js";
import { pathSegment, shapeModel, type Shaping } from "./model-shape.js";
import type { Checking, FileFieldSite } from "./checking.js";
import { fileTagOf } from "./file-fields.js";
import { analyseHandler, routeExport } from "./handlers.js";
import { heldBack, leading } from "./held-back.js";
import { discoverModels, type Model } from "./models.js";
import { clashingModels } from "./model-names.js";
import { tableOf, tableOption } from "./table.js";
import { pluginsEntry, tsconfigShown } from "./tsconfig-sites.js";
import { declaresOwned, declaresPolicy, guardedAndOwned, ownerOf, policyOwner, policyTeam, policyWithOthers } from "./owner.js";
import { checkTokenGuard } from "./token-scopes.js";
import { relate } from "./relations.js";
import { sortRows } from "./order.js";
import { checkReachable, checkRouteFiles } from "./route-conflicts.js";
import { normalPath, rowKeys, transformerVersion, type RowCache } from "./row-cache.js";
import { scanAppDir, type RouteFile } from "./scan.js";
import { findWsListener } from "./ws-listener.js";
import { authModule, checkRowGuards, placeRows } from "./overrides.js";
import { backOfficeRoutes, findBackOffice } from "./back-office.js";

export interface Generated {
  /** The generated module's text. */
  readonly text: string;
  /** The typed path builder's text (`config.paths`, src/.fw/paths.ts): app-paths.ts. */
  readonly paths: string;
  readonly rows: readonly Row[];
  readonly models: readonly Model[];
  /** User mistakes, each to become a diagnostic in the file it names. */
  readonly findings: readonly Finding[];
  /** The models with a store in the module's `stores` (derived and not broken), by name: what a job may ask for. */
  readonly stored: ReadonlySet<string>;
  /** Those of them with an owner (their store is a ScopedStore). */
  readonly owned: ReadonlySet<string>;
  /** The models with a store, as the route module's `stores` has them: what the factories module makes rows of. */
  readonly derived: readonly Derived[];
}

/**
 * The whole generator, a pure function of (program, config): scan the app folder, read each
 * handler with the checker, check capabilities and guards, order the rows (spec 4.2), find the
 * models, print the module. Nothing here writes a file or changes the program.
 */
export function generate(program: ts.Program, config: FwConfig, tsApi: typeof ts, found: readonly RouteFile[] = scanAppDir(config.appDir), cache?: RowCache): Generated {
  const findings: Finding[] = [];
  const checker = program.getTypeChecker();
  const show = (file: string): string => shown(config, file);
  const rejected = new Set<string>();
  const models = discoverModels({ ts: tsApi, checker, srcDir: config.srcDir, shown: show, findings, rejected }, program.getSourceFiles());
  const clashing = clashingModels({ ts: tsApi, checker, shown: show, findings }, models);
  const shaped = models.filter((m) => !clashing.has(m)).flatMap((model) => derive({ ts: tsApi, checker, shown: show, findings }, model, models));
  const refused = new Set([...rejected, ...models.filter((m) => m.derivations.includes("Resource") && !shaped.some((d) => d.model === m)).map((m) => m.name)]);
  const derived = relate({ ts: tsApi, checker, shown: show, findings }, shaped, refused);
  // The models' own mistakes lead the build's output: what fails after may follow from them.
  leading(findings, findings.length);
  // A model that failed the build has its own diagnostic; a handler asking for its store is left
  // out of the table rather than told to get the store from the capabilities module.
  models.filter((m) => m.derivations.includes("Resource") && !derived.some((d) => d.model === m)).forEach((m) => rejected.add(m.name));
  const office = findBackOffice({ ts: tsApi, checker, shown: show, findings }, program.getSourceFiles(), models, derived, rejected);
  const c: Checking = {
    ts: tsApi,
    checker,
    shown: show,
    findings,
    models: new Set(derived.map((d) => d.model.name)),
    formModels: new Set(models.filter((m) => m.derivations.includes("Form") && !m.derivations.includes("Resource") && !rejected.has(m.name)).map((m) => m.name)),
    brokenModels: rejected,
    ownedModels: new Set(derived.flatMap((d) => (d.owner === undefined ? [] : [d.model.name]))),
    wsListener: findWsListener(checker, program.getSourceFiles()),
    capabilityModule: { shown: show(config.capabilities), exports: exportsOf(checker, tsApi, program.getSourceFile(config.capabilities)) },
    liveValues: findLiveValues(checker, program.getSourceFiles()),
    appDir: config.appDir,
    fileFields: fileFieldSites(checker, models, derived),
  };
  const sourceOf = (file: string): ts.SourceFile | undefined => program.getSourceFile(file);
  const scanned = found.filter((route) => included(route, sourceOf, c));
  const routes = checkRouteFiles(scanned, sourceOf, c.shown, findings);
  const auth = authModule(tsApi, program, config.projectDir, config.auth, config.fwModule);
  const keys = cache === undefined ? undefined : rowKeys(program, tsApi, routes.map((route) => route.file), [config.out, apiModuleOf(config.out), config.paths, config.factories], cacheSalt(config, auth));
  const analysed = routes.flatMap((route) => {
    const key = keys?.get(normalPath(route.file));
    const remembered = key === undefined ? undefined : cache?.get(route.file, key);
    if (remembered !== undefined) return remembered;
    const before = findings.length;
    const made = rowOf(c, config, route, sourceOf);
    if (key !== undefined && findings.length === before && rejected.size === 0) cache?.put(route.file, key, made);
    return made;
  });
  const rows = placeRows(c, analysed, derived);
  if (auth !== undefined) {
    checkRowGuards(c, rows, auth, sourceOf);
    models.forEach((model) => checkModelGuard(c, model, auth));
  }
  const sorted = sortRows(rows);
  checkReachable(sorted, sourceOf, show, findings);
  checkLivePosts(tsApi, sorted, derived, sourceOf, show, findings);
  const forms = formOnly(c, models, sorted);
  const held = heldBack({ ts: tsApi, checker, shown: show, findings }, models, derived, routes, sorted);
  const paths = appPaths({ ts: tsApi, checker, shown: show, findings }, program, config, sorted, derived, held, office === undefined ? [] : backOfficeRoutes(office, derived));
  const text = emitModule({ out: config.out, fwModule: config.fwModule, dbModule: config.dbModule, liveModule: config.liveModule, filesModule: config.filesModule, jobsModule: config.jobsModule, capabilitiesFile: config.capabilities, rows: sorted, models, derived, forms, appDirShown: c.shown(config.appDir), ...(office === undefined ? {} : { backOffice: office }) });
  if (usesTypia(sorted, [...derived, ...forms])) {
    const missing = typiaMissing(program, tsApi, show, `the generated routes call typia (${typiaUser(sorted, [...derived, ...forms])})`);
    if (missing !== undefined) findings.push(missing);
  }
  return { text, paths, rows: sorted, models, findings, stored: c.models, owned: c.ownedModels, derived };
}

/**
 * TS91017, on the tsconfig's `plugins`, when generated code calls typia (`what` says which and
 * why) but the tsconfig lists no typia transform; undefined when it does.
 */
export function typiaMissing(program: ts.Program, tsApi: typeof ts, show: (file: string) => string, what: string): Finding | undefined {
  if (hasTypiaTransform(program.getCompilerOptions())) return undefined;
  return {
    code: Codes.typiaTransformMissing,
    category: "error",
    ...pluginsEntry(program, tsApi),
    message: `${tsconfigShown(program, show)}: ${what}, but compilerOptions.plugins has no typia transform. Add { "transform": "typia/lib/transform" } after fw's entry.`,
  };
}

/** A module's exports by name, aliases resolved (`export { x as y }`). */
function exportsOf(checker: ts.TypeChecker, tsApi: typeof ts, module: ts.SourceFile | undefined): ReadonlyMap<string, ts.Symbol> {
  const symbol = module === undefined ? undefined : checker.getSymbolAtLocation(module);
  const exported = symbol === undefined ? [] : checker.getExportsOfModule(symbol);
  return new Map(exported.map((s) => [s.getName(), s.flags & tsApi.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s]));
}

/** What a remembered row depends on besides the program: the plugin options, whether the app uses auth, and fw's version. */
function cacheSalt(config: FwConfig, auth: string | undefined): string {
  return JSON.stringify({ config, auth, transformer: transformerVersion() });
}

/** typia's transformer listed among the tsconfig's plugins (ts-patch reads them from there). */
function hasTypiaTransform(options: ts.CompilerOptions): boolean {
  const plugins: unknown = options["plugins"];
  return Array.isArray(plugins) && plugins.some((p: unknown) => typeof p === "object" && p !== null && /typia[\\/]lib[\\/]transform/.test(String((p as { transform?: unknown }).transform)));
}

/** A model deriving Resource, with its type read (key, fields, owner): its routes go in the table. */
function derive(s: Shaping, model: Model, models: readonly Model[]): Derived[] {
  if (!model.derivations.includes("Resource")) return [];
  const shape = shapeModel(s, model);
  if (shape === undefined) return [];
  const name = tableOption(s, model);
  if (name === null) return [];
  if (name === undefined && !filesHaveTable(s, model, shape)) return [];
  if (declaresPolicy(s, model)) {
    if (policyWithOthers(s, model)) return [];
    const owner = policyOwner(s, model, shape);
    if (owner === null) return [];
    const team = policyTeam(s, model, shape, name);
    if (team === null) return [];
    // The owner and team fields are never shown in a form nor read from one: Create stamps them (the signed-in user, their current team).
    const stamped = new Set([owner?.field, team?.field]);
    const fields = { ...shape, fields: shape.fields.filter((field) => !stamped.has(field.name)) };
    return withTable(s, { model, shape: fields, shown: s.shown(model.file), ...(owner === undefined ? {} : { owner }), ...(team === undefined ? {} : { team }), policy: true }, name);
  }
  if (!declaresOwned(s, model)) return withTable(s, { model, shape, shown: s.shown(model.file) }, name);
  if (guardedAndOwned(s, model)) return [];
  const owner = ownerOf(s, model, shape, new Set(models.filter((m) => m.derivations.includes("Resource")).map((m) => m.name)));
  if (owner === undefined) return [];
  // The owner is never shown in a form nor read from one: Create stamps it from the signed-in user.
  const owned = { ...shape, fields: shape.fields.filter((field) => field.name !== owner.field) };
  return withTable(s, { model, shape: owned, shown: s.shown(model.file), owner }, name);
}

/** A model declaring `table`, with its table derived from its fields (none when they cannot make one). */
function withTable(s: Shaping, derived: Derived, name: string | undefined): Derived[] {
  if (name === undefined) return [derived];
  const table = tableOf(s, derived.model, name, derived.shape, derived.owner, derived.team);
  return table === undefined ? [] : [{ ...derived, table }];
}

function included(route: RouteFile, sourceOf: (file: string) => ts.SourceFile | undefined, c: Checking): boolean {
  if (sourceOf(route.file) !== undefined) return true;
  c.findings.push({
    code: Codes.missingExport,
    category: "error",
    file: undefined,
    message: `${c.shown(route.file)} would mount ${route.role.method} ${route.pattern}, but the compiler could not read it.`,
  });
  return false;
}

function rowOf(c: Checking, config: FwConfig, route: RouteFile, sourceOf: (file: string) => ts.SourceFile | undefined): Row[] {
  const source = sourceOf(route.file) as ts.SourceFile;
  const names = route.pattern.split("/").filter((s) => s.startsWith(":") || s.startsWith("*")).map((s) => s.slice(1));
  const handler = analyseHandler(c, route, source, names);
  if (handler === undefined) return [];
  if (handler.case !== "ws" && handler.capabilities.some((use) => use.store !== undefined && c.brokenModels.has(use.store))) return [];
  if (handler.case !== "ws" && handler.capabilities.length > 0) {
    const site = { source, handler: route.role.exportName, capabilitiesFile: config.capabilities };
    if (!checkCapabilities(c, site, sourceOf(config.capabilities), handler.capabilities)) return [];
  }
  const guardedExport = routeExport(c, source, "guarded");
  if (guardedExport !== undefined && !checkTokenGuard(c, source, guardedExport, handler, `${c.shown(route.file)} (${route.role.method} ${route.pattern})`)) return [];
  const guarded = guardedExport !== undefined;
  const method = handler.case === "ws" ? "WS" : route.role.method;
  return [{ file: route.file, shown: c.shown(route.file), method, pattern: route.pattern, exportName: route.role.exportName, handler, guarded }];
}

/**
 * The models deriving Form alone (no routes, no store) whose form a live page reads: shaped
 * like a derived model's (the same rules and diagnostics), for their ModelSpec.
 */
function formOnly(c: Checking, models: readonly Model[], rows: readonly Row[]): Derived[] {
  const named = new Set(rows.flatMap((row) => (row.handler.case === "live" ? row.handler.forms.map((f) => f.model) : [])));
  return models.flatMap((model) => {
    if (!named.has(model.name) || !c.formModels.has(model.name)) return [];
    const shape = shapeModel(c, model);
    return shape === undefined ? [] : [{ model, shape, shown: c.shown(model.file) }];
  });
}

/** fw/live's `LiveValues` type, read from its declaration among the program's files. */
function findLiveValues(checker: ts.TypeChecker, files: readonly ts.SourceFile[]): ts.Type | undefined {
  const file = files.find((f) => /[\\/]runtime[\\/]live[\\/]page\.(d\.)?ts$/.test(f.fileName));
  const module = file === undefined ? undefined : checker.getSymbolAtLocation(file);
  const symbol = module === undefined ? undefined : checker.getExportsOfModule(module).find((s) => s.getName() === "LiveValues");
  return symbol === undefined ? undefined : checker.getDeclaredTypeOfSymbol(symbol);
}

/**
 * A live page answers POST at its own path (its forms without JavaScript): a Create.ts (or
 * another page) mounting POST there too would never be reached, or fail at boot.
 */
function checkLivePosts(tsApi: typeof ts, rows: readonly Row[], derived: readonly Derived[], sourceOf: (file: string) => ts.SourceFile | undefined, show: (file: string) => string, findings: Finding[]): void {
  const shape = (pattern: string): string => pattern.replace(/\/:[^/]+/g, "/:").replace(/\/\*[^/]+$/, "/*");
  for (const page of rows.filter((row) => row.handler.case === "live")) {
    // A derived Create (POST /posts) beside it would be overridden by the page's POST (spec 4.3):
    // the model's New form would post to the live page. The model's actions are read at run
    // time, so this is a warning: it may leave Create out.
    const source = sourceOf(page.file);
    const declared = source?.statements.find(
      (statement) => tsApi.isVariableStatement(statement) && statement.declarationList.declarations.some((d) => tsApi.isIdentifier(d.name) && d.name.text === page.exportName),
    );
    // A page without events mounts no POST (fw/live's livePageRoutes): nothing is taken.
    if (declared !== undefined && !declaresEvents(tsApi, declared)) continue;
    const model = derived.find((d) => `/${pathSegment(d.model.name)}` === page.pattern);
    if (model !== undefined) {
      findings.push({
        code: Codes.liveTakesCreate,
        category: "warning",
        file: source,
        ...(declared === undefined ? {} : { start: declared.getStart(), length: declared.getEnd() - declared.getStart() }),
        message:
          `${show(page.file)} is a live page at ${page.pattern}, where ${model.model.name}'s derived Create is mounted (POST ${page.pattern}): the page's own POST (its forms without JavaScript) overrides it, so ${model.model.name}'s New form would post to the live page and be refused. ` +
          `Move the live page to its own path (${page.pattern}/live: a Live.tsx beside it), or leave Create out of ${model.model.name}'s actions.`,
      });
    }
    const taken = rows.find((row) => row !== page && shape(row.pattern) === shape(page.pattern) && row.method === "POST");
    if (taken === undefined) continue;
    findings.push({
      code: Codes.duplicateRoute,
      category: "error",
      file: sourceOf(taken.file),
      message: `${show(taken.file)} and the live page ${show(page.file)} both mount POST ${page.pattern} (a live page answers POST at its path: its forms without JavaScript). Move ${show(taken.file)} to another path, or handle the form as an event of the live page.`,
    });
  }
}

/**
 * Whether a live page's declaration (`export const index = live({ … })`) may have events: false
 * only when the build reads its `live()` options and they have no `events`, or an empty one.
 */
function declaresEvents(tsApi: typeof ts, statement: ts.Statement): boolean {
  if (!tsApi.isVariableStatement(statement)) return true;
  const init = statement.declarationList.declarations[0]?.initializer;
  if (init === undefined || !tsApi.isCallExpression(init)) return true;
  const options = init.arguments[0];
  if (options === undefined || !tsApi.isObjectLiteralExpression(options)) return true;
  if (options.properties.some((p) => tsApi.isSpreadAssignment(p))) return true;
  const events = options.properties.find((p) => p.name !== undefined && (tsApi.isIdentifier(p.name) || tsApi.isStringLiteral(p.name)) && p.name.text === "events");
  if (events === undefined) return false;
  return !(tsApi.isPropertyAssignment(events) && tsApi.isObjectLiteralExpression(events.initializer) && events.initializer.properties.length === 0);
}

/**
 * Every model's file fields by their declarations (what an API body's file field may name,
 * upload-body.ts), each usable when its model derives Resource with a table and kept the field.
 */
function fileFieldSites(checker: ts.TypeChecker, models: readonly Model[], derived: readonly Derived[]): Map<ts.Node, FileFieldSite> {
  const sites = new Map<ts.Node, FileFieldSite>();
  for (const model of models) {
    const argument = model.call.typeArguments?.[0];
    if (argument === undefined) continue;
    const made = derived.find((d) => d.model === model);
    for (const property of checker.getTypeFromTypeNode(argument).getProperties()) {
      if (fileTagOf({ checker }, checker.getNonNullableType(checker.getTypeOfSymbol(property))) === undefined) continue;
      const field = made?.table === undefined ? undefined : made.shape.fields.find((f) => f.name === property.getName() && f.input === "file");
      const site: FileFieldSite = { model: model.name, field: property.getName(), usable: field !== undefined, ...(field?.file?.maxPixels === undefined ? {} : { maxPixels: field.file.maxPixels }) };
      for (const declaration of property.getDeclarations() ?? []) sites.set(declaration, site);
    }
  }
  return sites;
}

/** With the auth module in use, a model's companion must declare `guarded` (or `owned`). */
function checkModelGuard(c: Checking, model: Model, auth: string): void {
  const options = model.call.arguments.find((a) => c.ts.isObjectLiteralExpression(a));
  const declares = (name: string): boolean =>
    options !== undefined && c.ts.isObjectLiteralExpression(options) && options.properties.some((p) => p.name !== undefined && p.name.getText() === name);
  if (declares("guarded") || declares("owned") || declares("policy")) return;
  c.findings.push({
    code: Codes.missingGuard,
    category: "error",
    file: model.call.getSourceFile(),
    start: model.call.getStart(),
    length: model.call.getWidth(),
    message: `the model ${model.name} declares no \`guarded\`. The app uses the auth module (${auth}), so every model says who may reach its routes: add \`guarded: Guarded.public\` (or a guard from ${auth}) to derives<${model.name}>(…, { … }).`,
  });
}

/** What makes the generated module call typia, for TS91017's message. */
function typiaUser(rows: readonly Row[], derived: readonly Derived[]): string {
  if (derived.length > 0) return `the model ${derived[0]?.model.name}`;
  const json = rows.find((row) => row.handler.case === "http" && (row.handler.json === true || row.handler.upload !== undefined));
  if (json === undefined) return "a typed path parameter";
  return `the ${json.handler.case === "http" && json.handler.upload !== undefined ? "upload" : "JSON body"} of ${json.shown}`;
}

/**
 * TS91081: a file field on a model kept in memory. A file outlives the process that stored it,
 * and its row must too (a restart would forget which row holds it, and never delete it).
 */
function filesHaveTable(s: Shaping, model: Model, shape: ReturnType<typeof shapeModel> & object): boolean {
  const files = shape.fields.filter((field) => field.input === "file");
  if (files.length === 0) return true;
  s.findings.push({
    code: Codes.fileWithoutTable,
    category: "error",
    file: model.call.getSourceFile(),
    start: model.call.getStart(),
    length: model.call.getWidth(),
    message:
      `${s.shown(model.file)}: the model ${model.name} has the file field${files.length === 1 ? "" : "s"} ${files.map((f) => `\`${f.name}\``).join(", ")} but no table: a stored file outlives the process, so its row must too. ` +
      `Give the model a table, derives<${model.name}>(…, { table: "${pathSegment(model.name).replace(/-/g, "_")}" }) with fw/db, or drop the field.`,
  });
  return false;
}
