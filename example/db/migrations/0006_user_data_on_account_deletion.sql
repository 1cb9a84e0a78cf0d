-- user data on account deletion: applied once, in a transaction, by `db migrate`. Never edit it once applied: add a new migration.
-- comments: changes what deleting a users row does to author_id: on delete cascade
ALTER TABLE "comments" DROP CONSTRAINT "comments_author_id_fkey";
ALTER TABLE "comments" ADD CONSTRAINT "comments_author_id_fkey" FOREIGN KEY ("author_id") REFERENCES "users" ("id") ON DELETE CASCADE;

-- posts: makes author_id optional (NULL allowed)
ALTER TABLE "posts" ALTER COLUMN "author_id" DROP NOT NULL;

-- posts: changes what deleting a users row does to author_id: on delete set null
ALTER TABLE "posts" DROP CONSTRAINT "posts_author_id_fkey";
ALTER TABLE "posts" ADD CONSTRAINT "posts_author_id_fkey" FOREIGN KEY ("author_id") REFERENCES "users" ("id") ON DELETE SET NULL;
