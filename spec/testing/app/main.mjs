// A small fw/db app for spec/testing: GET /add?text=… inserts a note, GET /notes lists them.
// Run by fw/testing's startApp with this folder as its working directory (db/migrations here).
// Needs dist/ (`npm run build` first).
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const dist = join(dirname(fileURLToPath(import.meta.url)), "../../../dist/runtime");
const { Ok, Route, RouteTable } = await import(join(dist, "index.js"));
const { DbApp, SqlStore, appDatabase } = await import(join(dist, "db/index.js"));

const database = appDatabase();
const notes = new SqlStore(database, { name: "notes", key: { field: "id", column: "id" }, columns: [{ field: "text", column: "text", type: "text", nullable: false }] });
const routes = RouteTable.of(
  Route.get("/notes", async () => Ok(`notes: ${(await notes.list({ offset: 0, limit: 100 })).rows.map((note) => note.text).join(",")}`)),
  Route.get("/add", async (request) => {
    await notes.insert({ text: request.query.get("text") ?? "" });
    return Ok("added");
  }),
  Route.get("/engine", () => Ok(database.description)),
);
process.exitCode = await new DbApp({ routes, accessLog: false, database }).main();
