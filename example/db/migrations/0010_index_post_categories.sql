-- index post categories: applied once, in a transaction, by `db migrate`. Never edit it once applied: add a new migration.
-- posts: adds the index posts_category_id_idx on (category, id) (pages list by it)
CREATE INDEX "posts_category_id_idx" ON "posts" ("category", "id");
-- posts: counts the rare words of fw_search (its statistics target 1,000, as fw/db makes a search column now; drift does not compare it)
ALTER TABLE "posts" ALTER COLUMN "fw_search" SET STATISTICS 1000;

-- fw:down: what `db rollback` runs, in a transaction, to undo the above (this part may be edited after it is applied).
-- undoes: posts: counts the rare words of fw_search
ALTER TABLE "posts" ALTER COLUMN "fw_search" SET STATISTICS -1;
-- undoes: posts: adds the index posts_category_id_idx on (category, id) (pages list by it)
DROP INDEX "posts_category_id_idx";
