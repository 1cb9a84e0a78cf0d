// A small app on fw/db for the command tests, run from a temp working directory that holds
// db/migrations. Needs dist/ (`npm test` builds first). PLAIN=1 runs it as a bare HttpApp.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const dist = join(dirname(fileURLToPath(import.meta.url)), "../../../dist/runtime");
const { HttpApp, Ok, Route, RouteTable } = await import(join(dist, "index.js"));
const { DbApp, SqlStore, appDatabase } = await import(join(dist, "db/index.js"));

const database = appDatabase();
const notesTable = { name: "notes", key: { field: "id", column: "id" }, columns: [{ field: "text", column: "text", type: "text", nullable: false }] };
const notes = new SqlStore(database, notesTable);
// TABLES=1: DbApp is given the models' tables (`db new` writes what they lack): notes with done and a required priority.
const done = { field: "done", column: "done", type: "boolean", nullable: true };
const priority = { field: "priority", column: "priority", type: "integer", nullable: false };
const tables = process.env.TABLES === "1" ? { tables: [{ ...notesTable, columns: [...notesTable.columns, done, priority] }] } : {};
const routes = RouteTable.of(
  Route.get("/notes", async () => Ok((await notes.list({ offset: 0, limit: 100 })).rows.map((note) => note.text).join(","))),
  // Whether the database syncs each commit to disk (issue 28: production does, dev need not).
  Route.get("/fsync", async () => Ok(String((await database.query("SELECT current_setting('fsync') AS v")).rows[0].v))),
);

const app =
  process.env.PLAIN === "1"
    ? new HttpApp({ routes, accessLog: false })
    : new DbApp({ routes, accessLog: false, database, ...tables, seed: process.env.NO_SEED === "1" ? undefined : async () => void (await notes.insert({ text: "seeded" })) });
process.exitCode = await app.main();
