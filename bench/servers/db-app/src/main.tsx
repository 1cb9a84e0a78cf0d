// fw's side of the database bench (bench/db.mjs): a table model's derived pages on DbApp,
// PostgreSQL when DATABASE_URL is set, else the embedded PGlite under `.fw/db` of the working
// directory. Built by the bench (tspc with fw's transformer, its JSX pre-renderer and typia).
import type { Layout } from "fw";
import { DbApp } from "fw/db";
import { table, tables } from "./.fw/routes.js";
import { seed } from "./seed.js";

const layout: Layout = ({ title, content, request }) => {
  const user = request.session.get("user");
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <title>{title} · Bench blog</title>
        <link rel="stylesheet" href="/style.css" />
      </head>
      <body>
        <header>
          <a href="/">Bench blog</a>
          {user === undefined ? null : <span class="user">Signed in as {user}</span>}
        </header>
        <main>{content}</main>
        <footer><p>© 2025 Bench blog &amp; friends</p></footer>
      </body>
    </html>
  );
};

process.exitCode = await new DbApp({ routes: table(), layout, tables, seed, accessLog: false }).main();
