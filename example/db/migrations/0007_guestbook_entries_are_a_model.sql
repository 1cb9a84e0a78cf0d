-- guestbook entries are a model: applied once, in a transaction, by `db migrate`. Never edit it once applied: add a new migration.
-- guestbook: adds fw's version column fw_version
ALTER TABLE "guestbook" ADD COLUMN "fw_version" integer NOT NULL DEFAULT 1;
