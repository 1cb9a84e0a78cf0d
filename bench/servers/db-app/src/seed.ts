import type { Database } from "fw/db";

/** Articles the plain rows read: more than a page (50), so the Index shows its pager, and text that needs escaping. */
export const ARTICLES = 60;
/** Authors the posts point at: a page of 50 posts names 25 of them (one label query loads them all). */
export const AUTHORS = 25;
/** Posts, each by author `((n - 1) % AUTHORS) + 1`: more than a page, so their Index shows its pager too. */
export const POSTS = 60;
/** Tags the posts carry, 3 each (`postTags`): a page of 50 posts names all 20 (one label query loads them). */
export const TAGS = 20;
/** A post's category (a union: the Index filters by it), by its number. */
export const CATEGORIES = ["news", "howto", "misc"] as const;
/** Comments per post: a post's Show lists a full page of them (20), without a pager. */
export const COMMENTS_PER_POST = 20;

const BODY =
  `Benchmarks are "easy" to write & hard to read: a <b>number</b> without its spread, its machine and its baseline says little. ` +
  `Here both servers run the same query on the same table, and build the same bytes. ` +
  `A database page costs a round trip to the database, the rows' conversion, escaping & the layout; the ratio says what fw adds to that.`;

/** The tags of post `n`: three of the 20, apart (the big tables' seeding gives its million posts the same). */
export function postTags(n: number): number[] {
  return [(n % TAGS) + 1, ((n + 7) % TAGS) + 1, ((n + 13) % TAGS) + 1].sort((a, b) => a - b);
}

/** `db seed`: the rows, each with its own text, through parameters (the comments in one statement per post). */
export async function seed(db: Database): Promise<void> {
  await db.transaction(async (tx) => {
    for (let i = 1; i <= ARTICLES; i++) {
      await tx.query(`INSERT INTO "articles" ("title", "author", "body", "rating", "published") VALUES ($1, $2, $3, $4, $5)`, [
        `Article #${i}: "Fair" benchmarks & <other> stories`,
        "Ada Lovelace <ada@example.com>",
        `${BODY} (row ${i})`,
        (i % 5) + 0.5,
        i % 3 !== 0,
      ]);
    }
    for (let i = 1; i <= AUTHORS; i++) {
      await tx.query(`INSERT INTO "authors" ("name", "email") VALUES ($1, $2)`, [`Author #${i} "Quill" & <Sons>`, `author${i}@example.com`]);
    }
    for (let i = 1; i <= TAGS; i++) await tx.query(`INSERT INTO "tags" ("name") VALUES ($1)`, [`Tag #${i} "Q&A" <${i}>`]);
    for (let i = 1; i <= POSTS; i++) {
      await tx.query(`INSERT INTO "posts" ("title", "author_id", "body", "published", "category") VALUES ($1, $2, $3, $4, $5)`, [
        `Post #${i}: "Fair" benchmarks & <other> stories`,
        ((i - 1) % AUTHORS) + 1,
        `${BODY}\n(post ${i})`,
        i % 3 !== 0,
        CATEGORIES[i % CATEGORIES.length],
      ]);
      await tx.query(`INSERT INTO "posts_tags" ("post_id", "tag_id") SELECT $1::bigint, unnest($2::bigint[])`, [i, `{${postTags(i).join(",")}}`]);
      await tx.query(
        `INSERT INTO "comments" ("post_id", "name", "body") SELECT $1::bigint, 'Reader #' || n || ' <r' || n || '@example.com>', $2::text || ' & "comment" #' || n || E' on <post>\n' || $1::text FROM generate_series(1, $3::int) AS n`,
        [i, "Agreed: the spread matters more than the median", COMMENTS_PER_POST],
      );
    }
  });
}
