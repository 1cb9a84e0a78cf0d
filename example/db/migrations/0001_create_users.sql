-- The users of fw/auth's SqlUsers (usersTableSql()): applied once, in a transaction, by `db migrate`.
-- Never edit a migration once applied: add a new one.
CREATE TABLE "users" (
  "id" bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  "email" text NOT NULL UNIQUE,
  "password_hash" text NOT NULL,
  "session_epoch" text NOT NULL,
  "fw_version" integer NOT NULL DEFAULT 1
);
CREATE TABLE "users_revoked_sessions" (
  "user_id" bigint NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE,
  "session_id" text NOT NULL,
  "until_ms" bigint NOT NULL,
  PRIMARY KEY ("user_id", "session_id")
);
