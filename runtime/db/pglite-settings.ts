/**
 * PostgreSQL settings fw starts the embedded engine with, on top of PGlite's own start
 * parameters (docs/guides/database.md, "The embedded engine: memory and first open").
 *
 * PGlite keeps PostgreSQL's default `shared_buffers` of 128 MB, and PostgreSQL writes every
 * page of it at start: 128 MB of resident memory in the WebAssembly heap before the first
 * query, half of an idle app's footprint. The buffer cache of a one-process, one-connection
 * engine whose files sit in the operating system's page cache gains little from being that
 * large: a page it misses is a `read` of a cached file. 8 MB holds the catalogs and the hot
 * pages of a small app's tables (1,024 pages of 8 kB); measured on the bench's store rows
 * (insert and read by key) the cost per operation is the same within noise, and reads spread
 * over a 14 MB table (which 16 MB held, 8 MB does not) cost 8-15 % more CPU each
 * (bench/FINDINGS.md sections 20 and 23).
 *
 * `max_connections` sizes PostgreSQL's shared lock tables and per-backend arrays, all resident
 * from the start (100 by default: ~2 MB); PGlite has one connection, so 10 is plenty (it must
 * exceed the 3 reserved for superusers), and with no replication `max_wal_senders` is 0 (it
 * must be below `max_connections`).
 */
export const PGLITE_SETTINGS: Readonly<Record<string, string>> = {
  shared_buffers: "8MB",
  max_connections: "10",
  max_wal_senders: "0",
};

/** The settings as `postgres` start parameters (`-c name=value`). */
export function settingParams(settings: Readonly<Record<string, string>> = PGLITE_SETTINGS): string[] {
  return Object.entries(settings).flatMap(([name, value]) => ["-c", `${name}=${value}`]);
}
