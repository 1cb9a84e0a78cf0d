-- create comments: applied once, in a transaction, by `db migrate`. Never edit it once applied: add a new migration.
-- comments: creates the table comments
CREATE TABLE "comments" (
  "id" bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  "post_id" bigint NOT NULL CONSTRAINT "comments_post_id_fkey" REFERENCES "posts" ("id") ON DELETE CASCADE,
  "body" varchar(2000) NOT NULL,
  "created_at" timestamptz,
  "author_id" bigint NOT NULL CONSTRAINT "comments_author_id_fkey" REFERENCES "users" ("id") ON DELETE RESTRICT,
  "fw_version" integer NOT NULL DEFAULT 1
);
COMMENT ON TABLE "comments" IS 'fw/db: the table of a model';
CREATE INDEX "comments_post_id_idx" ON "comments" ("post_id");
CREATE INDEX "comments_author_id_idx" ON "comments" ("author_id");
