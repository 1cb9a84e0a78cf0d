import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import type * as ts from "typescript";
import type { Row } from "./emit.js";

/**
 * Remembers each route file's analysed row between builds (in `.fw/rows.json`, beside the
 * generated module), so an `--incremental` or watch rebuild after editing one handler reads only
 * that handler with the type checker instead of all of them.
 *
 * A row is reused only under the same key, and the key covers everything its analysis read:
 * the route file's text, the texts of the route files it imports (directly or through other
 * route files), and one hash over every other file of the program (fw's and the libraries'
 * declarations, the capabilities module, models, helpers, and any route file a non-route file
 * imports), the compiler options, the plugin options and the transformer's own code. Editing a
 * shared module therefore re-reads every handler, as a build without the cache does. Rows whose
 * analysis reported anything are never stored: a failing build always re-reads them.
 */
export class RowCache {
  readonly #file: string;
  readonly #stored: ReadonlyMap<string, Entry>;
  readonly #next = new Map<string, Entry>();

  private constructor(file: string, stored: ReadonlyMap<string, Entry>) {
    this.#file = file;
    this.#stored = stored;
  }

  /** Reads the cache file; a missing, unreadable or older-format file is an empty cache. */
  static load(file: string): RowCache {
    let stored = new Map<string, Entry>();
    try {
      const data = JSON.parse(fs.readFileSync(file, "utf8")) as Partial<Stored>;
      if (data.format === FORMAT && typeof data.entries === "object" && data.entries !== null) stored = new Map(Object.entries(data.entries));
    } catch {
      // First build, or a file from elsewhere: start empty.
    }
    return new RowCache(file, stored);
  }

  /** The rows stored for `routeFile` under `key`, or undefined. */
  get(routeFile: string, key: string): readonly Row[] | undefined {
    const entry = this.#stored.get(routeFile);
    if (entry === undefined || entry.key !== key) return undefined;
    this.#next.set(routeFile, entry);
    return entry.rows;
  }

  put(routeFile: string, key: string, rows: readonly Row[]): void {
    this.#next.set(routeFile, { key, rows: rows.map(storable) });
  }

  /** Writes what this build used or made (entries of vanished files are dropped), if it changed. */
  save(): void {
    const text = JSON.stringify({ format: FORMAT, entries: Object.fromEntries([...this.#next].sort(([a], [b]) => (a < b ? -1 : 1))) } satisfies Stored);
    try {
      if (fs.existsSync(this.#file) && fs.readFileSync(this.#file, "utf8") === text) return;
      fs.mkdirSync(path.dirname(this.#file), { recursive: true });
      fs.writeFileSync(this.#file, text);
    } catch {
      // A read-only tree builds as before, just without the cache.
    }
  }
}

/** Bump when a Row's shape or what the analysis reads changes. */
const FORMAT = 5;

interface Entry {
  readonly key: string;
  readonly rows: readonly Row[];
}

interface Stored {
  readonly format: number;
  readonly entries: Record<string, Entry>;
}

/** A row as JSON can hold it: a capability's checker type is only needed while checking. */
function storable(row: Row): Row {
  if (row.handler.case === "ws") return row;
  const capabilities = row.handler.capabilities.map(({ name, type, store }) => (store === undefined ? { name, type } : { name, type, store }));
  return { ...row, handler: { ...row.handler, capabilities } };
}

/**
 * One key per route file (see RowCache). `salt` is whatever else the analysis depends on: the
 * plugin options and the transformer's version. `generated` are the modules the build writes
 * (the route table, the API module, the path builder): made from the rows, they are no input of one, and the
 * path builder changes with every pattern, which must not make every row be read again.
 */
export function rowKeys(program: ts.Program, tsApi: typeof ts, routeFiles: readonly string[], generated: readonly string[], salt: string): Map<string, string> {
  const routes = new Set(routeFiles.map(normalPath));
  const options = program.getCompilerOptions();
  const resolve = resolverOf(program, tsApi);
  const textHash = new Map<string, string>();
  const hashOf = (file: ts.SourceFile): string => {
    let hash = textHash.get(file.fileName);
    if (hash === undefined) {
      hash = digest(file.text);
      textHash.set(file.fileName, hash);
    }
    return hash;
  };
  // Which route files each project file imports (node_modules and lib files import none).
  const routeImports = new Map<string, string[]>();
  // The generated modules (routes.ts, and api.ts and paths.ts beside it) import every (API) route
  // file or change with every pattern, and no row depends on them: counted, api.ts, absent from the first build's program and present in the
  // next, changed every key, and made every API route file "shared".
  const generatedFiles = new Set(generated.map(normalPath));
  for (const file of program.getSourceFiles()) {
    if (file.isDeclarationFile || file.fileName.includes("/node_modules/") || generatedFiles.has(normalPath(file.fileName))) continue;
    const found: string[] = [];
    for (const specifier of moduleSpecifiers(file, tsApi)) {
      const resolved = resolve(specifier, file);
      if (resolved !== undefined && routes.has(normalPath(resolved))) found.push(normalPath(resolved));
    }
    if (found.length > 0) routeImports.set(normalPath(file.fileName), found);
  }
  const closure = (start: Iterable<string>): Set<string> => {
    const seen = new Set<string>();
    const stack = [...start];
    for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
      if (seen.has(next)) continue;
      seen.add(next);
      stack.push(...(routeImports.get(next) ?? []));
    }
    return seen;
  };
  // Route files that non-route files import count as shared: their text goes in the global hash.
  const shared = closure([...routeImports].filter(([file]) => !routes.has(file)).flatMap(([, imported]) => imported));
  const global = createHash("sha256").update(salt).update(JSON.stringify(options, (name, value: unknown) => (name === "configFile" ? undefined : value)));
  for (const file of program.getSourceFiles()) {
    const name = normalPath(file.fileName);
    if (generatedFiles.has(name) || (routes.has(name) && !shared.has(name))) continue;
    global.update(name).update(hashOf(file));
  }
  const globalKey = global.digest("hex");
  const keys = new Map<string, string>();
  for (const route of routes) {
    const source = program.getSourceFile(route);
    if (source === undefined) continue;
    const key = createHash("sha256").update(globalKey);
    for (const file of [...closure([route])].sort()) {
      const text = program.getSourceFile(file);
      key.update(file).update(text === undefined ? "-" : hashOf(text));
    }
    keys.set(route, key.digest("hex"));
  }
  return keys;
}

/** What TypeScript's program offers, though not in its declarations: the resolution it made for an import. */
type ResolvingProgram = ts.Program & {
  readonly getResolvedModuleFromModuleSpecifier?: (specifier: ts.StringLiteralLike, file: ts.SourceFile) => ts.ResolvedModuleWithFailedLookupLocations | undefined;
};

/**
 * The file an import in `file` resolves to. The program resolved every import already, in the
 * importing file's own resolution mode: its answer is read back. Resolving each import again
 * was about a tenth of fw's own time in a cold build of 1,000 route files. Resolved here only
 * where the program keeps no record (a TypeScript without that method).
 */
function resolverOf(program: ts.Program, tsApi: typeof ts): (specifier: ts.StringLiteral, file: ts.SourceFile) => string | undefined {
  const fromProgram = (program as ResolvingProgram).getResolvedModuleFromModuleSpecifier?.bind(program);
  const options = program.getCompilerOptions();
  let cache: ts.ModuleResolutionCache | undefined;
  return (specifier, file) => {
    const recorded = fromProgram?.(specifier, file);
    if (recorded !== undefined) return recorded.resolvedModule?.resolvedFileName;
    cache ??= tsApi.createModuleResolutionCache(program.getCurrentDirectory(), (name) => name, options);
    return tsApi.resolveModuleName(specifier.text, file.fileName, options, tsApi.sys, cache).resolvedModule?.resolvedFileName;
  };
}

/** The module specifiers a file imports or re-exports from (static forms only). */
function moduleSpecifiers(file: ts.SourceFile, tsApi: typeof ts): ts.StringLiteral[] {
  const specifiers: ts.StringLiteral[] = [];
  for (const statement of file.statements) {
    const specifier =
      tsApi.isImportDeclaration(statement) || tsApi.isExportDeclaration(statement)
        ? statement.moduleSpecifier
        : tsApi.isImportEqualsDeclaration(statement) && tsApi.isExternalModuleReference(statement.moduleReference)
          ? statement.moduleReference.expression
          : undefined;
    if (specifier !== undefined && tsApi.isStringLiteral(specifier)) specifiers.push(specifier);
  }
  return specifiers;
}

/** A file name as keys use it: absolute, with `/`. */
export function normalPath(file: string): string {
  return path.resolve(file).split(path.sep).join("/");
}

function digest(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** The transformer's own code, hashed once per process: a new fw version never reuses old rows. */
export function transformerVersion(): string {
  transformerHash ??= (() => {
    const hash = createHash("sha256");
    // The compiled transformer is CommonJS (transformer/package.json); from sources (tests) there is no __dirname.
    if (typeof __dirname !== "string") return "sources";
    for (const name of fs.readdirSync(__dirname).filter((n) => n.endsWith(".js")).sort()) hash.update(name).update(fs.readFileSync(path.join(__dirname, name)));
    return hash.digest("hex");
  })();
  return transformerHash;
}
let transformerHash: string | undefined;
