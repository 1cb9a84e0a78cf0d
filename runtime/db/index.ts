/**
 * fw/db — the optional database module (issue 20): models in PostgreSQL, embedded by default
 * (PGlite, persisted under `.fw/db`) or a server when `DATABASE_URL` is set. The HTTP core
 * never imports it. Names are re-exported one by one; everything else here is internal.
 */
export type { Database, Connection, Queryable, QueryResult, Row, Engine } from "./database.js";
export { openDatabase, appDatabase, AppDatabase, DEFAULT_DB_DIRECTORY, PGLITE_URL_SCHEME, type OpenOptions } from "./open.js";
export { DbApp, type DbAppOptions } from "./db-app.js";
export { processDatabase, setProcessDatabase } from "./process-database.js";
export { addProcessBackground, type Background, type BackgroundContext } from "./background.js";
export { DatabaseUnreachable, type PostgresOptions } from "./postgres-engine.js";
export { CannotOpenDatabase } from "./open-error.js";
export { quoteIdentifier } from "./identifier.js";
export { COLUMN_TYPES, VERSION_COLUMN, type ColumnType, type ColumnSpec, type LinkSpec, type TableSpec } from "./table.js";
export { createTableSql, linkTableSql } from "./ddl.js";
export { schemaDrift, type SchemaDrift, type SchemaChange, type ChangeKind, type FillQuestion } from "./schema-diff.js";
export { SqlStore } from "./sql-store.js";
export { SqlScopedStore, OwnedSqlRows } from "./sql-scoped-store.js";
export { SqlRows } from "./sql-rows.js";
export { SqlAttemptLimiter, ATTEMPTS_TABLE, ATTEMPTS_TABLE_SQL } from "./sql-attempt-limiter.js";
export { SqlAccountTokens, TOKENS_TABLE, TOKENS_TABLE_SQL } from "./sql-account-tokens.js";
export { SqlApiTokens, API_TOKENS_TABLE, apiTokensTableSql } from "./sql-api-tokens.js";
export { SqlPasskeys, PASSKEYS_TABLE, passkeysTableSql } from "./sql-passkeys.js";
export { SqlIdentities, IDENTITIES_TABLE, identitiesTableSql } from "./sql-identities.js";
export { SqlSecondFactors, SECOND_FACTORS_TABLE, secondFactorsTableSql } from "./sql-second-factors.js";
export { PostgresFanOut, MAX_NOTIFY_PAYLOAD_BYTES, ROOMS_CHANNEL, type PostgresFanOutOptions } from "./postgres-fan-out.js";
export { SqlUsers, usersTableSql, USERS_TABLE, MAX_REVOKED_SESSIONS, type SqlUsersOptions } from "./sql-users.js";
export { SqlAuditLog, AUDIT_TABLE, AUDIT_TABLE_SQL } from "./sql-audit-log.js";
export { joinedTransaction, type Joined } from "./joined.js";
export type { Versioned } from "./sql-table.js";
export {
  migrate,
  rollback,
  canRollBack,
  DOWN_MARKER,
  migrationStatus,
  newMigration,
  readMigrations,
  MigrationError,
  MIGRATIONS_DIRECTORY,
  type Migration,
  type MigrationStatus,
} from "./migrations.js";
export { Conflict, DuplicateValue, MissingReference, StillReferenced } from "../resource/store-errors.js";
export { ServiceUnavailable } from "../http/failure.js";
