-- search posts: applied once, in a transaction, by `db migrate`. Never edit it once applied: add a new migration.
-- posts: adds fw's search column fw_search (the words of title, body, in english) and its GIN index
ALTER TABLE "posts" ADD COLUMN "fw_search" tsvector GENERATED ALWAYS AS (setweight(to_tsvector('english'::regconfig, coalesce("title", '')), 'A') || setweight(to_tsvector('english'::regconfig, coalesce("body", '')), 'B')) STORED;
COMMENT ON COLUMN "posts"."fw_search" IS 'fw/db: search english title, body';
CREATE INDEX "posts_fw_search_idx" ON "posts" USING gin ("fw_search");

-- fw:down: what `db rollback` runs, in a transaction, to undo the above (this part may be edited after it is applied).
-- undoes: posts: adds fw's search column fw_search (the words of title, body, in english) and its GIN index
ALTER TABLE "posts" DROP COLUMN "fw_search";
