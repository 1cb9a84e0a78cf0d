import * as fs from "node:fs";
import * as path from "node:path";
import type * as ts from "typescript";
import { at, Codes, type Finding } from "./diagnostics.js";
import { fwTypeName } from "./fw-symbols.js";

/** One job file the build found under the jobs folder, with what it read of it. */
export interface JobFile {
  /** Absolute path. */
  readonly file: string;
  /** The file as messages and `// from` show it. */
  readonly shown: string;
  /** The job's name: the file's base name (`SendWelcome`). */
  readonly name: string;
  /** The file exports `options`. */
  readonly options: boolean;
  /** The stores its `run` asks for in its third parameter (issue 43): each property and its model. */
  readonly stores?: readonly { readonly name: string; readonly model: string }[];
}

/** What reading the job files needs from the compiler. */
export interface JobChecking {
  readonly ts: typeof ts;
  readonly checker: ts.TypeChecker;
  readonly shown: (file: string) => string;
  readonly findings: Finding[];
  /** The models with a store (derived, not broken), by name: what a job may ask for. */
  readonly models: ReadonlySet<string>;
  /** Those of them with an owner, whose store is a ScopedStore. */
  readonly owned: ReadonlySet<string>;
}

/**
 * The job files: `<jobsDir>/<Name>.ts`, the name starting with an upper-case letter (as route
 * files); other files there, and subfolders, are plain modules (helpers). Sorted by name.
 */
export function scanJobsDir(jobsDir: string): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(jobsDir, { withFileTypes: true });
  } catch {
    return []; // no jobs folder: no jobs
  }
  return entries
    .filter((entry) => entry.isFile() && /^[A-Z][A-Za-z0-9]*\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts"))
    .map((entry) => path.join(jobsDir, entry.name))
    .sort();
}

const SHAPE =
  "A job file exports `export async function run(payload: Payload, job: JobContext): Promise<void> { … }` (the second parameter is optional; Payload is an object type of JSON values; a third, `{ posts: AllRows<Post> }`, asks for model stores)";

/**
 * Reads a job file: it must export `run`, one function taking the payload (an object type made
 * of JSON values, since it is stored as JSON and checked again by typia when it runs) and
 * optionally the `JobContext`. Mistakes become findings naming the file; the result is then
 * undefined.
 */
export function analyseJob(c: JobChecking, source: ts.SourceFile): JobFile | undefined {
  const name = path.basename(source.fileName).replace(/\.tsx?$/, "");
  const shown = c.shown(source.fileName);
  const exports = exportsOf(c, source);
  const run = exports.get("run");
  const fail = (code: number, node: ts.Node | undefined, message: string): undefined => {
    c.findings.push({ code: code as Finding["code"], category: "error", file: source, ...(node === undefined ? {} : at(node)), message: `${shown} is the job ${name}, but ${message}` });
    return undefined;
  };
  if (run === undefined) return fail(Codes.jobRunMissing, undefined, `it exports no \`run\`. ${SHAPE}.`);
  const declaration = run.valueDeclaration ?? run.getDeclarations()?.[0];
  const signatures = c.checker.getTypeOfSymbolAtLocation(run, declaration ?? source).getCallSignatures();
  if (signatures.length !== 1) return fail(Codes.jobRunMissing, declaration, `its \`run\` ${signatures.length === 0 ? "is not a function" : "has several call signatures (overloads)"}. ${SHAPE}.`);
  const parameters = (signatures[0] as ts.Signature).getParameters();
  if (parameters.length < 1 || parameters.length > 3) {
    return fail(Codes.jobRunParameters, declaration, `its \`run\` takes ${parameters.length} parameters; it takes the payload and, optionally, the JobContext and the stores it uses. ${SHAPE}.`);
  }
  const payload = c.checker.getTypeOfSymbol(parameters[0] as ts.Symbol);
  const bare = topLevelProblem(c, payload);
  if (bare !== undefined) {
    return fail(Codes.jobPayloadType, declaration, `its payload is \`${bare}\`; a payload is an object of JSON values (\`run(payload: { email: string })\`), so a job can gain fields later.`);
  }
  const problem = jsonProblem(c, payload, "payload", new Set(), 0);
  if (problem !== undefined) {
    const type = c.checker.typeToString(payload);
    return fail(Codes.jobPayloadType, declaration, `its payload type \`${type}\` cannot be stored as JSON: ${problem}. Use strings, numbers, booleans, null, arrays and plain objects (an ISO date string for a date, an id for a row).`);
  }
  const third = parameters[2];
  const stores = third === undefined ? [] : jobStores(c, c.checker.getTypeOfSymbol(third), (message) => fail(Codes.jobStores, declaration, message));
  if (stores === undefined) return undefined;
  return { file: source.fileName, shown, name, options: exports.has("options"), ...(stores.length === 0 ? {} : { stores }) };
}

/**
 * A job's third parameter: an object whose every property is `AllRows<M>` (or `ScopedStore<M>`,
 * of an owned model) of a model with a store. A job runs for nobody signed in, so `Store<M>` (a
 * handler's viewer's rows) is refused, naming the explicit type to ask for; undefined once a
 * finding says why.
 */
function jobStores(c: JobChecking, type: ts.Type, fail: (message: string) => undefined): { name: string; model: string }[] | undefined {
  if ((type.flags & c.ts.TypeFlags.Object) === 0 || type.getCallSignatures().length > 0) {
    return fail(`its third parameter is \`${c.checker.typeToString(type)}\`; it is the model stores the job uses, an object of them: \`{ posts }: { posts: AllRows<Post> }\`.`);
  }
  const stores: { name: string; model: string }[] = [];
  for (const property of type.getProperties()) {
    const asked = c.checker.getTypeOfSymbol(property);
    const kind = fwTypeName(asked, "store") ?? fwTypeName(asked, "scopedStore");
    const argument = (asked.aliasTypeArguments ?? (kind === undefined ? [] : c.checker.getTypeArguments(asked as ts.TypeReference)))[0];
    const model = argument === undefined ? undefined : (argument.aliasSymbol ?? argument.getSymbol())?.getName();
    const shown = `${property.getName()}: ${c.checker.typeToString(asked)}`;
    if (kind === "Store" && model !== undefined) {
      return fail(`it asks for \`${shown}\`, a viewer's rows, and a job runs for nobody signed in: ask for every row by name, \`${property.getName()}: AllRows<${model}>\` (narrow with \`where\` to the rows it works on).`);
    }
    if ((kind !== "AllRows" && kind !== "ScopedStore") || model === undefined) {
      return fail(`it asks for \`${shown}\` in its third parameter, which holds model stores only: \`AllRows<Post>\` (or \`ScopedStore<Post>\` of an owned model). Import anything else in the job's file.`);
    }
    if (!c.models.has(model)) return fail(`it asks for \`${shown}\`, but ${model} is not a model with a store (derives<${model}>(Form, Resource) in src/models).`);
    if (kind === "ScopedStore" && !c.owned.has(model)) return fail(`it asks for \`${shown}\`, but ${model} declares no \`owned\`, so its store is no ScopedStore: ask for \`${property.getName()}: AllRows<${model}>\`.`);
    stores.push({ name: property.getName(), model });
  }
  return stores;
}

function exportsOf(c: JobChecking, source: ts.SourceFile): Map<string, ts.Symbol> {
  const module = c.checker.getSymbolAtLocation(source);
  const exported = module === undefined ? [] : c.checker.getExportsOfModule(module);
  return new Map(exported.map((s) => [s.getName(), s.flags & c.ts.SymbolFlags.Alias ? c.checker.getAliasedSymbol(s) : s]));
}

/** The payload itself is an object (so a job can gain fields later), not a bare value or a list. */
function topLevelProblem(c: JobChecking, type: ts.Type): string | undefined {
  const parts = type.isUnion() ? type.types : [type];
  const bare = parts.find((part) => !(part.flags & c.ts.TypeFlags.Object) || c.checker.isArrayType(part) || c.checker.isTupleType(part));
  return bare === undefined ? undefined : c.checker.typeToString(bare);
}

/** Types JSON cannot carry as they are (a Date would come back as a string). */
const NOT_JSON = new Set(["Date", "Map", "Set", "WeakMap", "WeakSet", "RegExp", "Promise", "Uint8Array", "ArrayBuffer", "Buffer", "URL", "Error"]);

/** Why `type` (at `where`) is not made of JSON values, or undefined. Recursion is cut at 10 levels and at types seen before. */
function jsonProblem(c: JobChecking, type: ts.Type, where: string, seen: Set<ts.Type>, depth: number): string | undefined {
  const f = c.ts.TypeFlags;
  if (seen.has(type) || depth > 10) return undefined;
  if (type.flags & (f.Any | f.Unknown | f.StringLike | f.NumberLike | f.BooleanLike | f.Null | f.Undefined | f.Void | f.Never)) {
    if (type.flags & f.Void) return `${where} is void`;
    return undefined;
  }
  if (type.flags & f.BigIntLike) return `${where} is a bigint (JSON has no bigint: use a string)`;
  if (type.flags & f.ESSymbolLike) return `${where} is a symbol`;
  if (type.isUnion() || type.isIntersection()) {
    for (const part of type.types) {
      const problem = jsonProblem(c, part, where, seen, depth + 1);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  seen.add(type);
  const symbol = type.getSymbol() ?? type.aliasSymbol;
  if (symbol !== undefined && NOT_JSON.has(symbol.getName())) return `${where} is a ${symbol.getName()}`;
  if (type.getCallSignatures().length > 0) return `${where} is a function`;
  if (c.checker.isArrayType(type) || c.checker.isTupleType(type)) {
    for (const element of c.checker.getTypeArguments(type as ts.TypeReference)) {
      const problem = jsonProblem(c, element, `${where}[]`, seen, depth + 1);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  for (const property of type.getProperties()) {
    const problem = jsonProblem(c, c.checker.getTypeOfSymbol(property), `${where}.${property.getName()}`, seen, depth + 1);
    if (problem !== undefined) return problem;
  }
  const index = c.checker.getIndexInfosOfType(type);
  for (const info of index) {
    const problem = jsonProblem(c, info.type, `${where}[key]`, seen, depth + 1);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** The module path of `file` as the generated module imports it. */
function specifier(out: string, file: string): string {
  const relative = path.relative(path.dirname(out), file).split(path.sep).join("/").replace(/\.tsx?$/, ".js");
  return relative.startsWith(".") ? relative : `./${relative}`;
}

/**
 * The generated jobs module (`src/.fw/jobs.ts`): one import per job file, then `jobs`, made by
 * fw/jobs' `defineJobs` with each job's `run`, typia's validator of its payload type (read off
 * `run`'s own first parameter, so the type need not be exported) and its `options`.
 */
export function emitJobsModule(input: { readonly out: string; readonly jobsModule: string; readonly jobsDirShown: string; readonly jobs: readonly JobFile[]; readonly routesOut?: string }): string {
  const q = (text: string): string => JSON.stringify(text);
  const lines = [
    `// Generated by fw from ${input.jobsDirShown}. Do not edit: every build rewrites this file.`,
    "// A type error here means the job file named above it does not fit: fix it there.",
    `import { defineJobs, type JobSpec } from ${q(input.jobsModule)};`,
    `declare const typia: typeof import("typia").default;`,
    ...input.jobs.map((job, i) => `import * as j${i} from ${q(specifier(input.out, job.file))};`),
    // The routes module's stores, read when a job runs (a handler importing this module is imported by the routes: no value is read while they load).
    ...(input.routesOut !== undefined && input.jobs.some((job) => job.stores !== undefined) ? [`import * as routes from ${q(specifier(input.out, input.routesOut))};`] : []),
    "",
    "/**",
    " * The app's jobs, by name: `await jobs.SendWelcome.enqueue(payload)` (alone, or `{ tx }` in a transaction).",
    " * Pass `jobs` to DbApp (`new DbApp({ routes, jobs })`): every serving process runs them.",
    " */",
    "export const jobs = defineJobs({",
  ];
  input.jobs.forEach((job, i) => {
    const payload = job.stores === undefined ? `Parameters<typeof j${i}.run>[0]` : `Parameters<typeof j${i}.run>[0], Parameters<typeof j${i}.run>[2]`;
    const validated = `Parameters<typeof j${i}.run>[0]`;
    // The validator is an arrow around typia.validate (inlined by the transform), not a
    // createValidate() call: loading the module runs no typia, so code that reaches it untransformed
    // (a test importing an app's source, as spec/ws/broadcast imports the example's chat) still loads.
    lines.push(
      `  // from ${job.shown}`,
      `  ${job.name}: {`,
      `    name: ${q(job.name)},`,
      `    source: ${q(job.shown)},`,
      `    run: j${i}.run,`,
      `    validate: ((input: unknown) => typia.validate<${validated}>(input)) as JobSpec<${payload}>["validate"],`,
      ...(job.options ? [`    options: j${i}.options,`] : []),
      ...(job.stores === undefined ? [] : [`    stores: () => ({ ${job.stores.map((store) => `${store.name}: routes.stores.${store.model}`).join(", ")} }),`]),
      `  } satisfies JobSpec<${payload}>,`,
    );
  });
  lines.push("});", "");
  return lines.join("\n");
}

/**
 * The jobs half of the build, a pure function of (program, config, job files): each file read,
 * and the module's text, undefined when there is no job file (an app without jobs gets no jobs
 * module and never loads fw/jobs).
 */
export function generateJobs(
  program: ts.Program,
  tsApi: typeof ts,
  config: { readonly projectDir: string; readonly jobsDir: string; readonly jobsOut: string; readonly jobsModule: string; readonly out: string },
  files: readonly string[],
  models: { readonly stored: ReadonlySet<string>; readonly owned: ReadonlySet<string> } = { stored: new Set(), owned: new Set() },
): { readonly text: string | undefined; readonly findings: readonly Finding[] } {
  if (files.length === 0) return { text: undefined, findings: [] };
  const shown = (file: string): string => path.relative(config.projectDir, file).split(path.sep).join("/");
  const c: JobChecking = { ts: tsApi, checker: program.getTypeChecker(), shown, findings: [], models: models.stored, owned: models.owned };
  const jobs = files.flatMap((file) => {
    const source = program.getSourceFile(file);
    if (source === undefined) {
      c.findings.push({ code: Codes.jobRunMissing, category: "error", file: undefined, message: `${shown(file)} would be the job ${path.basename(file).replace(/\.tsx?$/, "")}, but the compiler could not read it.` });
      return [];
    }
    return analyseJob(c, source) ?? [];
  });
  const text = emitJobsModule({ out: config.jobsOut, jobsModule: config.jobsModule, jobsDirShown: shown(config.jobsDir), jobs, routesOut: config.out });
  return { text, findings: c.findings };
}
