-- The table models' tables (as `db new` derived them from Post and Note) and the hand-written
-- guestbook's. Never edit a migration once applied: add a new one.
CREATE TABLE "notes" (
  "id" bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  "text" varchar(200) NOT NULL,
  "pinned" boolean NOT NULL,
  "fw_version" integer NOT NULL DEFAULT 1
);

CREATE TABLE "posts" (
  "id" bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  "title" varchar(200) NOT NULL,
  "body" varchar(10000) NOT NULL,
  "published" boolean NOT NULL,
  "summary" varchar(200),
  "category" text NOT NULL,
  "author_id" bigint NOT NULL REFERENCES "users" ("id") ON DELETE RESTRICT,
  "fw_version" integer NOT NULL DEFAULT 1
);
CREATE INDEX "posts_author_id_idx" ON "posts" ("author_id");

CREATE TABLE "guestbook" (
  "id" bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  "name" varchar(100) NOT NULL,
  "message" varchar(2000) NOT NULL
);
