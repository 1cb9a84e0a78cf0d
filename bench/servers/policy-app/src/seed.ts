import { seedUser } from "fw/auth";
import { SqlUsers, type Database } from "fw/db";
import type { User } from "./users.js";

/** Rows per model: more than a page (50), so each Index shows its pager. */
export const ROWS = 60;
/** Who the bench signs in as, and their password. */
export const EMAIL = "ada@bench.example";
export const PASSWORD = "plum orbit velvet 9271";

const BODY = `A page under a policy costs what its query costs: the rule is a WHERE, not a loop over the rows & <b>no</b> second round trip.`;

/**
 * `db seed`: ada, in a team of her own (its owner), with 60 memos of hers and 60 drafts of the
 * team's; another user's memos and another team's drafts beside them, which neither page shows.
 */
export async function seed(db: Database): Promise<void> {
  const users = new SqlUsers<User>(db);
  const teams = users.teams();
  const ada = await seedUser(users, EMAIL, PASSWORD);
  const bob = await seedUser(users, "bob@bench.example", PASSWORD);
  const newsroom = await teams.create("Newsroom", ada.id);
  const other = await teams.create("Elsewhere", bob.id);
  for (const [owner, team] of [[ada.id, newsroom.id], [bob.id, other.id]] as const) {
    for (let i = 1; i <= ROWS; i++) {
      await db.query(`INSERT INTO "memos" ("owner_id", "title", "body") VALUES ($1, $2, $3)`, [owner, `Memo #${i}: "policies" & <rows>`, `${BODY} (${i})`]);
      await db.query(`INSERT INTO "drafts" ("team_id", "author_id", "title", "body") VALUES ($1, $2, $3, $4)`, [team, owner, `Memo #${i}: "policies" & <rows>`, `${BODY} (${i})`]);
    }
  }
}
