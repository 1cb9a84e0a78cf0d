// fw's side of the policy rows of the database bench (bench/db.mjs, issue 41): a derived Index of
// 50 rows under `owned` alone, and the same rows under a policy reading roles and the team.
import type { Layout } from "fw";
import { DbApp } from "fw/db";
import { table, tables } from "./.fw/routes.js";
import { seed } from "./seed.js";
import { mailer } from "./users.js";

const layout: Layout = ({ title, content }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <title>{title} · Bench newsroom</title>
    </head>
    <body>
      <main>{content}</main>
    </body>
  </html>
);

process.exitCode = await new DbApp({ routes: table(), layout, tables, seed, parts: [mailer], accessLog: false }).main();
