import { randomBytes } from "node:crypto";

/** A database made for one test on the server `DATABASE_URL` names. */
export interface FreshDatabase {
  readonly url: string;
  /** Drops it, with any connection still open to it. */
  drop(): Promise<void>;
}

/** Creates an empty database (`fw_test_<random>`) beside the one `url` names, and its URL. */
export async function freshPostgres(url: string): Promise<FreshDatabase> {
  // pg is fw/db's driver for PostgreSQL (an optional peer dependency): an app on DATABASE_URL has it.
  const pg = (
    await import("pg").catch((error: unknown) => {
      throw new Error("fw/testing: DATABASE_URL is set, so each test gets a database of its own on that server, which needs the package pg: npm install pg", { cause: error });
    })
  ).default;
  const name = `fw_test_${randomBytes(6).toString("hex")}`;
  const run = async (sql: string): Promise<void> => {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(sql);
    } finally {
      await admin.end();
    }
  };
  await run(`CREATE DATABASE ${name}`);
  const fresh = new URL(url);
  fresh.pathname = `/${name}`;
  return { url: fresh.toString(), drop: () => run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
