-- tags on posts and the posts' dates (issue 43, item 9): applied once, in a transaction, by `db migrate`. Never edit it once applied: add a new migration.
-- tags: creates the table tags
CREATE TABLE "tags" (
  "id" bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  "name" varchar(40) NOT NULL CONSTRAINT "tags_name_key" UNIQUE,
  "fw_version" integer NOT NULL DEFAULT 1
);
COMMENT ON TABLE "tags" IS 'fw/db: the table of a model';
CREATE INDEX "tags_name_id_idx" ON "tags" ("name", "id");

-- posts: adds the column created_at (timestamp with time zone, NOT NULL); the rows already there get the value you choose
-- The posts written before it get the time of this migration (their true dates were never kept);
-- /posts lists them after every newer post, among themselves newest key first.
ALTER TABLE "posts" ADD COLUMN "created_at" timestamptz NOT NULL DEFAULT now();
ALTER TABLE "posts" ALTER COLUMN "created_at" DROP DEFAULT;

-- posts: adds the index posts_created_at_id_idx on (created_at, id) (pages list by it)
CREATE INDEX "posts_created_at_id_idx" ON "posts" ("created_at", "id");

-- posts_tags: creates the join table posts_tags of posts.tags (post_id, tag_id)
CREATE TABLE "posts_tags" (
  "post_id" bigint NOT NULL CONSTRAINT "posts_tags_post_id_fkey" REFERENCES "posts" ("id") ON DELETE CASCADE,
  "tag_id" bigint NOT NULL CONSTRAINT "posts_tags_tag_id_fkey" REFERENCES "tags" ("id") ON DELETE CASCADE,
  CONSTRAINT "posts_tags_pkey" PRIMARY KEY ("post_id", "tag_id")
);
COMMENT ON TABLE "posts_tags" IS 'fw/db: the join table of posts.tags';
CREATE INDEX "posts_tags_tag_id_post_id_idx" ON "posts_tags" ("tag_id", "post_id");

-- fw:down: what `db rollback` runs, in a transaction, to undo the above (this part may be edited after it is applied).
-- undoes: posts_tags: creates the join table posts_tags of posts.tags (post_id, tag_id)
DROP TABLE "posts_tags";

-- undoes: posts: adds the index posts_created_at_id_idx on (created_at, id) (pages list by it)
DROP INDEX "posts_created_at_id_idx";

-- undoes: posts: adds the column created_at (timestamp with time zone, NOT NULL); the rows already there get the value you choose
ALTER TABLE "posts" DROP COLUMN "created_at";

-- undoes: tags: creates the table tags
DROP TABLE "tags";
