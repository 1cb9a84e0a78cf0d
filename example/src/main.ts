import { DbApp } from "fw/db";
import { table, tables } from "./.fw/routes.js";
import { jobs } from "./.fw/jobs.js";
import { layout } from "./layout.js";
import { mailer } from "./mail.js";
import { seedDemo } from "./seed.js";

// Posts, notes, the guestbook and users live in the database, found as in any fw app from the
// working directory (`npm start` and `fw dev --project example` run in example/): the embedded
// one (PGlite) in .fw/db unless DATABASE_URL names a PostgreSQL server, migrations in
// db/migrations. `dev` applies pending migrations, then (devBoot) makes sure the demo account
// exists (README: demo@example.com / demo-password), with the demo tags, and the demo posts on a
// database without posts (src/seed.ts); `db seed` makes them too. Production refuses
// to start with pending migrations and never seeds.
// `openapi` names the API's OpenAPI document (`node dist/main.js openapi`, /fw/openapi.json in dev):
// docs/reference/example-openapi.json is the example's, as the build describes it.
const openapi = { title: "fw example", version: "0.1.0", description: "The JSON API of fw's example app: its posts and its guestbook." };
// The mailer is a part of the app: it checks SMTP_URL and FW_ORIGIN at boot, and in dev serves the mailbox at /fw/mail.
// The jobs under src/jobs (mail delivery, the nightly guestbook trim) run in every serving process; in dev their page is /fw/jobs.
// Mail goes through the DeliverMail job, named here rather than in mail.ts: the job imports the mailer.
mailer.sendThrough(jobs.DeliverMail);
const app = new DbApp({ routes: table(), layout, tables, parts: [mailer], seed: seedDemo, devBoot: seedDemo, jobs, openapi });

// The app never listens itself: `main` reads the command (none, dev, routes, db …) and runs it.
process.exitCode = await app.main();
