-- index the posts everyone reads: applied once, in a transaction, by `db migrate`. Never edit it once applied: add a new migration.
-- posts: adds the index posts_published_id_idx on (published, id) (pages list by it)
CREATE INDEX "posts_published_id_idx" ON "posts" ("published", "id");
