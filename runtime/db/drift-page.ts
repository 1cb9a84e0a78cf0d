import { element, type Child, type Html } from "../html/node.js";
import { phrase, problemContent } from "../server/problem.js";
import type { SchemaChange, SchemaDrift } from "./schema-diff.js";

/** The drift page's paths (spec 4.6): they exist only in dev, only while the page is served. */
export const SYNC_PATH = "/fw/sync";
export const FREEZE_PATH = "/fw/freeze";

/** What the page needs beside the drift. */
export interface DriftPageProps {
  readonly status: number;
  /** The request path: the problem's instance, and where Sync and Freeze go back to. */
  readonly instance: string;
  /** The session's CSRF token, for the two forms. */
  readonly csrf: string;
  /** The migrations directory as the user sees it (`db/migrations`). */
  readonly migrations: string;
  /** The name Freeze proposes for the migration. */
  readonly name: string;
  /** Why the page came back after a post (a missing confirmation, a refused change). */
  readonly notice?: string;
}

const RED = "color:#b00020";

/**
 * The page every HTML GET answers in dev while the database drifted from the models: framed
 * like the broken-build page (a problem page), then what changed table by table and column by
 * column with its SQL, and the two forms. A destructive change is in red and both forms then
 * carry a confirmation box. Everything is text in the tree, so the renderer escapes it.
 */
export function driftContent(drift: SchemaDrift, props: DriftPageProps): Html {
  const count = drift.changes.length === 1 ? "1 change" : `${drift.changes.length} changes`;
  const detail =
    `The dev database does not match the models (${count}). The app's pages wait until it does: ` +
    `Sync applies the SQL below to the dev database now; Freeze writes it as the next migration in ${props.migrations}, applies it and records it.`;
  const problem = { type: "about:blank" as const, title: phrase(props.status), status: props.status, detail, instance: props.instance };
  return problemContent(problem, [
    props.notice === undefined ? null : element("p", { class: "fw-drift-notice", role: "alert", style: RED }, [props.notice]),
    ...byTable(drift.changes).map(([table, changes]) => tableSection(table, changes)),
    actionForm("sync", drift, props),
    actionForm("freeze", drift, props),
  ]);
}

function byTable(changes: readonly SchemaChange[]): [string, SchemaChange[]][] {
  const tables = new Map<string, SchemaChange[]>();
  for (const change of changes) tables.set(change.table, [...(tables.get(change.table) ?? []), change]);
  return [...tables];
}

function tableSection(table: string, changes: readonly SchemaChange[]): Child {
  return element("section", { class: "fw-drift-table", "data-table": table }, [
    element("h2", {}, ["table ", element("code", {}, [table])]),
    element("ul", {}, changes.map(changeItem)),
  ]);
}

function changeItem(change: SchemaChange): Child {
  const destructive = change.destructive !== undefined;
  return element("li", { class: destructive ? "fw-drift-change fw-drift-destructive" : "fw-drift-change", ...(destructive ? { style: RED } : {}), "data-kind": change.kind }, [
    change.column === undefined ? null : element("code", { class: "fw-drift-column" }, [change.column]),
    change.column === undefined ? null : ": ",
    change.summary,
    change.was === undefined || change.wanted === undefined ? null : ` (now ${change.was}, the model wants ${change.wanted})`,
    destructive ? element("strong", { class: "fw-drift-warning" }, [` Destructive: ${change.destructive}.`]) : null,
    element("pre", {}, [element("code", { class: "fw-drift-sql" }, [change.sql.trimEnd()])]),
  ]);
}

function actionForm(action: "sync" | "freeze", drift: SchemaDrift, props: DriftPageProps): Child {
  const sync = action === "sync";
  return element("form", { method: "post", action: sync ? SYNC_PATH : FREEZE_PATH, class: `fw-drift-${action}` }, [
    element("input", { type: "hidden", name: "_csrf", value: props.csrf }, []),
    element("input", { type: "hidden", name: "drift", value: drift.fingerprint }, []),
    element("input", { type: "hidden", name: "back", value: props.instance }, []),
    sync
      ? null
      : element("label", {}, ["Migration name ", element("input", { type: "text", name: "name", value: props.name, pattern: "[A-Za-z0-9_ ]+" }, [])]),
    drift.destructive
      ? element("label", { class: "fw-drift-confirm", style: RED }, [
          element("input", { type: "checkbox", name: "confirm", value: "destructive" }, []),
          " I understand: the changes in red delete or change data of the dev database.",
        ])
      : null,
    element("button", { type: "submit" }, [sync ? "Sync" : "Freeze"]),
    " ",
    sync
      ? "apply the SQL to the dev database now (no migration records it: Freeze or write one before you ship)"
      : `write the SQL as the next migration in ${props.migrations}, apply it and record it`,
  ]);
}
