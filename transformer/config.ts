import * as path from "node:path";

/** The plugin's options as written in tsconfig's `compilerOptions.plugins` entry. */
export interface PluginOptions {
  /** Folder of route files, relative to the tsconfig. Default `src/app`. */
  readonly appDir?: string;
  /** Root that model names are taken relative to (`src/models/Post.ts` → `models.Post`). Default `src`. */
  readonly srcDir?: string;
  /** The generated module, relative to the tsconfig. Default `src/.fw/routes.ts`. */
  readonly out?: string;
  /** The module that exports capabilities by name. Default `src/capabilities.ts` (if it exists). */
  readonly capabilities?: string;
  /**
   * Names the auth module, for an app whose module is not fw's own. A model or page without
   * `guarded` fails the build whenever the app imports fw/auth, with or without this option
   * (overrides.ts): it cannot turn the check off.
   */
  readonly auth?: string;
  /** The module specifier fw is imported by in generated code. Default `fw`. */
  readonly fwModule?: string;
  /** The specifier of fw/db in generated code (imported only when a model declares a `table`). Default `<fwModule>/db`. */
  readonly dbModule?: string;
  /** The specifier of fw/live in generated code (imported only when the app has a live page). Default `<fwModule>/live`. */
  readonly liveModule?: string;
  /** The specifier of fw/files in generated code (imported only when a model has a file field). Default `<fwModule>/files`. */
  readonly filesModule?: string;
  /**
   * Routes the app serves that the build cannot see (mounted beside `table()` by code it cannot
   * read, a guard's own routes under a computed prefix): `"GET /health"`, `"/hooks/*rest"` (any
   * method). The path checks count them as answered and `path()` takes them.
   */
  readonly extraRoutes?: readonly string[];
  /** The folder of files served as they are, relative to the tsconfig: the path checks count its files as answered. Default `public`. */
  readonly publicDir?: string;
  /** `false` turns the path and live topic checks off (TS91050, TS91051); `path()` is still written. Default true. */
  readonly verifyPaths?: boolean;
  /** Folder of job files (`<Name>.ts` exporting `run`), relative to the tsconfig. Default `src/jobs`. */
  readonly jobsDir?: string;
  /** The generated jobs module (written only when there are job files). Default `src/.fw/jobs.ts`. */
  readonly jobsOut?: string;
  /** The specifier of fw/jobs in generated code. Default `<fwModule>/jobs`. */
  readonly jobsModule?: string;
  /** The specifier of fw/testing in generated code (the factories module). Default `<fwModule>/testing`. */
  readonly testingModule?: string;
}

/** Resolved, absolute configuration: what the generator is a pure function of (with the program). */
export interface FwConfig {
  readonly projectDir: string;
  readonly appDir: string;
  readonly srcDir: string;
  readonly out: string;
  readonly capabilities: string;
  readonly auth: string | undefined;
  readonly fwModule: string;
  readonly dbModule: string;
  readonly liveModule: string;
  readonly filesModule: string;
  /** The typed path builder, beside the route module (`src/.fw/paths.ts`). */
  readonly paths: string;
  readonly extraRoutes: readonly string[];
  readonly publicDir: string;
  readonly verifyPaths: boolean;
  readonly jobsDir: string;
  readonly jobsOut: string;
  readonly jobsModule: string;
  /** The models' factories for the app's tests, beside the route module (`src/.fw/factories.ts`). */
  readonly factories: string;
  readonly testingModule: string;
}

export function resolveConfig(options: PluginOptions, projectDir: string): FwConfig {
  const at = (file: string): string => path.resolve(projectDir, file);
  return {
    projectDir,
    appDir: at(options.appDir ?? "src/app"),
    srcDir: at(options.srcDir ?? "src"),
    out: at(options.out ?? "src/.fw/routes.ts"),
    capabilities: at(options.capabilities ?? "src/capabilities.ts"),
    auth: options.auth,
    fwModule: options.fwModule ?? "fw",
    dbModule: options.dbModule ?? `${options.fwModule ?? "fw"}/db`,
    liveModule: options.liveModule ?? `${options.fwModule ?? "fw"}/live`,
    filesModule: options.filesModule ?? `${options.fwModule ?? "fw"}/files`,
    paths: path.join(path.dirname(at(options.out ?? "src/.fw/routes.ts")), "paths.ts"),
    extraRoutes: options.extraRoutes ?? [],
    publicDir: at(options.publicDir ?? "public"),
    verifyPaths: options.verifyPaths ?? true,
    jobsDir: at(options.jobsDir ?? "src/jobs"),
    jobsOut: at(options.jobsOut ?? "src/.fw/jobs.ts"),
    jobsModule: options.jobsModule ?? `${options.fwModule ?? "fw"}/jobs`,
    factories: path.join(path.dirname(at(options.out ?? "src/.fw/routes.ts")), "factories.ts"),
    testingModule: options.testingModule ?? `${options.fwModule ?? "fw"}/testing`,
  };
}

/** A path as messages and `// from` comments show it: relative to the project, with `/`. */
export function shown(config: FwConfig, file: string): string {
  return path.relative(config.projectDir, file).split(path.sep).join("/");
}
