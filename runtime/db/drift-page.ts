import { element, type Child, type Html } from "../html/node.js";
import { phrase, problemContent } from "../server/problem.js";
import { valueHint } from "./fill-value.js";
import type { FillQuestion, SchemaChange, SchemaDrift } from "./schema-change.js";
import type { ColumnType } from "./table.js";

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
 * column with its SQL, and one form with the two actions (Sync, Freeze). A destructive change is
 * in red and the form then carries a confirmation box; a change that cannot apply as it stands
 * says why; a new required column on a table with rows has a box for the value those rows get.
 * Everything is text in the tree, so the renderer escapes it.
 */
export function driftContent(drift: SchemaDrift, props: DriftPageProps): Html {
  const count = drift.changes.length === 1 ? "1 change" : `${drift.changes.length} changes`;
  const detail =
    `The dev database does not match the models (${count}). The app's pages wait until it does: ` +
    `Sync applies the SQL below to the dev database now; Freeze writes it as the next migration in ${props.migrations}, applies it and records it.`;
  const problem = { type: "about:blank" as const, title: phrase(props.status), status: props.status, detail, instance: props.instance };
  return problemContent(problem, [
    props.notice === undefined ? null : element("p", { class: "fw-drift-notice", role: "alert", style: RED }, [props.notice]),
    element("form", { method: "post", action: SYNC_PATH, class: "fw-drift-form" }, [
      element("input", { type: "hidden", name: "_csrf", value: props.csrf }, []),
      element("input", { type: "hidden", name: "drift", value: drift.fingerprint }, []),
      element("input", { type: "hidden", name: "back", value: props.instance }, []),
      ...byTable(drift.changes).map(([table, changes]) => tableSection(table, changes)),
      drift.destructive
        ? element("p", {}, [
            element("label", { class: "fw-drift-confirm", style: RED }, [
              element("input", { type: "checkbox", name: "confirm", value: "destructive" }, []),
              " I understand: the changes in red delete or change data of the dev database.",
            ]),
          ])
        : null,
      element("p", { class: "fw-drift-sync" }, [
        element("button", { type: "submit" }, ["Sync"]),
        " apply the SQL to the dev database now (no migration records it: Freeze or write one before you ship)",
      ]),
      element("p", { class: "fw-drift-freeze" }, [
        element("label", {}, ["Migration name ", element("input", { type: "text", name: "name", value: props.name, pattern: "[A-Za-z0-9_ ]+" }, [])]),
        " ",
        element("button", { type: "submit", formaction: FREEZE_PATH }, ["Freeze"]),
        ` write the SQL as the next migration in ${props.migrations}, apply it and record it`,
      ]),
    ]),
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
  const refused = change.refused !== undefined;
  const classes = ["fw-drift-change", destructive ? "fw-drift-destructive" : null, refused ? "fw-drift-refused" : null].filter((c) => c !== null).join(" ");
  return element("li", { class: classes, ...(destructive ? { style: RED } : {}), "data-kind": change.kind }, [
    change.column === undefined ? null : element("code", { class: "fw-drift-column" }, [change.column]),
    change.column === undefined ? null : ": ",
    change.summary,
    change.was === undefined || change.wanted === undefined ? null : ` (now ${change.was}, the model wants ${change.wanted})`,
    destructive ? element("strong", { class: "fw-drift-warning" }, [` Destructive: ${change.destructive}.`]) : null,
    change.asks === undefined ? null : valueInput(change.asks),
    refused ? element("p", { class: "fw-drift-reason", style: RED }, [`Cannot apply as it stands: ${change.refused}.`]) : null,
    element("pre", {}, [element("code", { class: "fw-drift-sql" }, [change.sql.trimEnd()])]),
  ]);
}

/**
 * The box for the value rows get, typed for the column: a number, a date, true/false, text (its
 * maximum length), the key of a row of a reference's table. The server checks it again.
 */
function valueInput(question: FillQuestion): Child {
  const column = question.column;
  const rows = question.rows === 1 ? "the 1 row" : `the ${question.rows} rows`;
  const what = column.references === undefined ? valueHint(column.type) : `the key (${column.references.column}) of a row of ${column.references.table}`;
  const value = question.given === undefined ? {} : { value: question.given };
  const common = { name: question.name, required: true, class: "fw-drift-value", ...value };
  const input =
    column.type === "boolean"
      ? element("select", { name: question.name, required: true, class: "fw-drift-value" }, [
          element("option", { value: "" }, ["choose"]),
          ...["true", "false"].map((choice) => element("option", { value: choice, selected: question.given === choice }, [choice])),
        ])
      : element("input", { ...common, ...INPUT[column.references === undefined ? column.type : "bigint"], ...(column.maxLength === undefined ? {} : { maxlength: column.maxLength }) }, []);
  return element("p", { class: "fw-drift-ask" }, [element("label", {}, [`The value ${rows} ${question.rows === 1 ? "gets" : "get"} in ${column.column} (${what}): `, input])]);
}

/** The attributes of the value box per column type. */
const INPUT: Record<ColumnType, Readonly<Record<string, unknown>>> = {
  text: { type: "text" },
  integer: { type: "number", step: "1" },
  bigint: { type: "number", step: "1" },
  "double precision": { type: "number", step: "any" },
  numeric: { type: "text", inputmode: "decimal" },
  boolean: {},
  date: { type: "date" },
  timestamptz: { type: "datetime-local" },
  jsonb: { type: "text" },
};
