import { CannotOpenDatabase } from "./open-error.js";

/**
 * Loads an engine's driver, an optional peer dependency of fw (docs/guides/database.md): an app
 * installs the one it uses. A driver that is not installed is a `CannotOpenDatabase` naming the
 * package and the command that installs it, instead of Node's "Cannot find package".
 */
export async function loadDriver<T>(name: "@electric-sql/pglite" | "pg", load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code !== "ERR_MODULE_NOT_FOUND" || !String((error as Error).message).includes(`'${name}'`)) throw error;
    const engine = name === "pg" ? "PostgreSQL (DATABASE_URL)" : "the embedded database (PGlite)";
    throw new CannotOpenDatabase(`fw/db: ${engine} needs the package ${name}, which is not installed. Add it to the app: npm install ${name}`, { cause: error });
  }
}
