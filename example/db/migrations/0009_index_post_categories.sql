-- index post categories: applied once, in a transaction, by `db migrate`. Never edit it once applied: add a new migration.
-- posts: adds the index posts_category_id_idx on (category, id) (pages list by it)
CREATE INDEX "posts_category_id_idx" ON "posts" ("category", "id");

-- fw:down: what `db rollback` runs, in a transaction, to undo the above (this part may be edited after it is applied).
-- undoes: posts: adds the index posts_category_id_idx on (category, id) (pages list by it)
DROP INDEX "posts_category_id_idx";
