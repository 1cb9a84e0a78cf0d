import type { Database } from "fw/db";

/** Rows the bench reads: more than a page (50), so the Index shows its pager, and text that needs escaping. */
export const ROWS = 60;

const BODY =
  `Benchmarks are "easy" to write & hard to read: a <b>number</b> without its spread, its machine and its baseline says little. ` +
  `Here both servers run the same query on the same table, and build the same bytes. ` +
  `A database page costs a round trip to the database, the rows' conversion, escaping & the layout; the ratio says what fw adds to that.`;

/** `db seed`: the rows, each with its own title, through parameters. */
export async function seed(db: Database): Promise<void> {
  await db.transaction(async (tx) => {
    for (let i = 1; i <= ROWS; i++) {
      await tx.query(`INSERT INTO "posts" ("title", "author", "body", "rating", "published") VALUES ($1, $2, $3, $4, $5)`, [
        `Post #${i}: "Fair" benchmarks & <other> stories`,
        "Ada Lovelace <ada@example.com>",
        `${BODY} (row ${i})`,
        (i % 5) + 0.5,
        i % 3 !== 0,
      ]);
    }
  });
}
