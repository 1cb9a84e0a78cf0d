import type { Request } from "../http/request.js";
import type { Html } from "../html/node.js";
import type { Actions } from "./actions.js";
import { Form, type Field } from "./form.js";
import { CELL_LENGTH, oneLine } from "./one-line.js";
import type { Ownership } from "./ownership.js";
import type { Order } from "./query.js";
import type { ReferenceLabels } from "./reference-view.js";
import type { ModelSpec } from "./model.js";
import { modelHref } from "./model-paths.js";

/** How a table's column headings behave: links that sort (Index), or plain text (Show's lists). */
export interface TableOptions {
  /** The current sort and where a heading's link goes to sort by another order; absent: plain headings. */
  readonly sorting?: { readonly order: Order | undefined; readonly at: (order: Order) => string };
  /** A column left out: the reference pointing back at the row whose Show lists these. */
  readonly omit?: string;
}

/**
 * One model's rows as a table, as its Index shows them and as another model's Show lists them:
 * a column per field (a reference as a link with its label), then the links to each row's Show
 * and, for a viewer who may change it, its Edit.
 */
export class RowsTable<A> {
  readonly form: Form<A>;

  constructor(
    readonly model: ModelSpec<A>,
    private readonly actions: Actions,
    private readonly own: Ownership<A>,
  ) {
    this.form = new Form(model);
  }

  /** A control for `role` is shown when the role is mounted and would not refuse this viewer. */
  offers(request: Request, role: "Edit" | "Destroy", row: A): boolean {
    return this.actions.has(role) && this.own.shows(request, role, row);
  }

  /** The path of one row, as this request reaches the table (under its `Route.under` prefix). */
  at(request: Request, key: unknown): string {
    return modelHref(request, this.model as ModelSpec<unknown>, "Show", key);
  }

  /** A field's value as a cell: a reference's label (as a link), else its text on one line. */
  cell(row: A, field: Field, labels: ReferenceLabels): Html | string {
    if (field.input === "reference") return labels.cell(row, field);
    return oneLine(this.form.display(row, field), CELL_LENGTH);
  }

  render(request: Request, rows: readonly A[], labels: ReferenceLabels, options: TableOptions = {}): Html {
    const keyOf = (row: A): unknown => (row as Record<string, unknown>)[this.model.key];
    const links = this.actions.has("Show") || this.actions.has("Edit");
    const shows = this.actions.has("Show");
    const columns = this.form.shown.filter((field) => field.name !== options.omit);
    return (
      <table class="fw-index">
        <thead>
          <tr>
            {columns.map((field) => this.heading(field, options.sorting))}
            {links ? <th scope="col"><span class="fw-hidden">Links</span></th> : null}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => {
            // Once per row: the row's path and whether this user may edit it (an ownership check).
            const key = keyOf(row);
            const at = links ? this.at(request, key) : "";
            const edits = links && this.offers(request, "Edit", row);
            return (
              <tr>
                {columns.map((field) => <td>{this.cell(row, field, labels)}</td>)}
                {links ? (
                  <td>
                    {shows ? <a href={at}>Show</a> : null}
                    {shows && edits ? " " : null}
                    {edits ? <a href={modelHref(request, this.model as ModelSpec<unknown>, "Edit", key)}>Edit</a> : null}
                  </td>
                ) : null}
              </tr>
            );
          })}
        </tbody>
      </table>
    );
  }

  /** A column heading: a link that sorts by it (ascending, or descending when it already sorts so), or plain. */
  private heading(field: Field, sorting: TableOptions["sorting"]): Html {
    if (sorting === undefined) return <th scope="col">{field.label}</th>;
    const order = sorting.order;
    const sorted = order?.field === field.name;
    const next = { field: field.name, descending: sorted && order?.descending !== true };
    const state = !sorted ? undefined : order?.descending === true ? "descending" : "ascending";
    return (
      <th scope="col" aria-sort={state}>
        <a href={sorting.at(next)}>{field.label}</a>
        {state === undefined ? null : state === "ascending" ? " ▲" : " ▼"}
      </th>
    );
  }
}
