-- add post covers and comment attachments: applied once, in a transaction, by `db migrate`. Never edit it once applied: add a new migration.
-- comments: adds the column attachment (jsonb, NULL allowed)
ALTER TABLE "comments" ADD COLUMN "attachment" jsonb;

-- posts: adds the column cover (jsonb, NULL allowed)
ALTER TABLE "posts" ADD COLUMN "cover" jsonb;
