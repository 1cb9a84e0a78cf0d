/**
 * Who watches the SQL statements fw/db sends: metrics time them, traces make a span of each. The
 * engines call `statementStarted` before a statement and the returned `end` once it settled;
 * with nothing watching (an app that configures neither) that is one check a statement. This
 * module belongs to no optional module, so fw/db, fw/metrics and the tracer meet here without
 * importing each other.
 */
export interface StatementWatcher {
  /** A statement is sent: what `end` is called with once it settled (with the error, when it failed). */
  started(sql: string, engine: string): (error?: unknown) => void;
}

let watchers: readonly StatementWatcher[] = [];

/** Watches every statement from now on, until the returned function is called. */
export function watchStatements(watcher: StatementWatcher): () => void {
  watchers = [...watchers, watcher];
  return () => {
    watchers = watchers.filter((w) => w !== watcher);
  };
}

/** Tells the watchers a statement starts; undefined (nothing to call) when none watches. */
export function statementStarted(sql: string, engine: string): ((error?: unknown) => void) | undefined {
  const now = watchers;
  if (now.length === 0) return undefined;
  if (now.length === 1) return (now[0] as StatementWatcher).started(sql, engine);
  const ends = now.map((watcher) => watcher.started(sql, engine));
  return (error) => {
    for (const end of ends) end(error);
  };
}

/** `run`'s promise, its statement watched (for the engines' paths that are already async). */
export function watched<T>(sql: string, engine: string, run: () => Promise<T>): Promise<T> {
  const end = statementStarted(sql, engine);
  if (end === undefined) return run();
  return run().then(
    (value) => {
      end();
      return value;
    },
    (error: unknown) => {
      end(error);
      throw error;
    },
  );
}

/** The statement's kind for a metric's label: its first keyword, lower-case (select, insert, …), else "other". */
export function statementKind(sql: string): string {
  const match = /^\s*(?:with\b[\s\S]*?\)\s*)?([a-z]+)/i.exec(sql);
  const word = match?.[1]?.toLowerCase();
  return word !== undefined && KINDS.has(word) ? word : "other";
}

const KINDS = new Set(["select", "insert", "update", "delete", "begin", "commit", "rollback", "listen", "notify", "create", "alter", "drop", "set", "show", "truncate"]);
