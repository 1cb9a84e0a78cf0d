/**
 * Which mode an app serves in. `NODE_ENV=production` is the one switch that guarantees
 * production whatever the command line says: a `dev` argument under it (an `npm start` that
 * passes `dev`, run by a platform that sets NODE_ENV=production) serves production, with a
 * notice, so no dev secret, stack trace, route listing or dev-only seed data reaches it.
 */

/** True when the environment says production: `NODE_ENV=production`, exactly (as Express reads it). */
export function isProductionEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  return env["NODE_ENV"] === "production";
}

/**
 * Whether `HttpApp.main` serves in dev mode for these program arguments: `dev`, unless
 * `NODE_ENV=production`. Apps ask it before doing anything meant for dev alone, such as seeding
 * a demo account, instead of reading `process.argv` themselves.
 */
export function isDevMode(args: readonly string[] = process.argv.slice(2), env: NodeJS.ProcessEnv = process.env): boolean {
  return args[0] === "dev" && !isProductionEnv(env);
}

/** What `serve` prints when NODE_ENV=production overrides a `dev` request. */
export const PRODUCTION_OVERRIDES_DEV =
  "fw: NODE_ENV=production: serving in production, not dev (FW_SECRET required; no dev secret, stack traces, route listings or reload socket). Unset NODE_ENV for dev mode.";
