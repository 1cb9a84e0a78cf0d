import type { Request } from "../http/request.js";
import type { Html } from "../html/node.js";
import { escapeHtml, raw } from "../html/render.js";
import type { Actions } from "./actions.js";
import { ControlGate } from "./control-gate.js";
import { Form, type Field } from "./form.js";
import { CELL_LENGTH, oneLineHtml } from "./one-line.js";
import type { Access } from "./ownership.js";
import { NO_ROW, type ShownRows } from "./shown-rows.js";
import type { Order } from "./query.js";
import type { ReferenceLabels } from "./reference-view.js";
import type { ModelSpec } from "./model.js";
import { fileHref, modelRowFiller } from "./model-paths.js";
import { isDigits, type PathValue } from "../routing/fill-path.js";
import type { StoredImage } from "./file-types.js";
import { defaultVariants, variantSize } from "./image-variants.js";
import { isStoredFile, sizeText } from "./model-files.js";

/** How a table's column headings behave: links that sort (Index), or plain text (Show's lists). */
export interface TableOptions {
  /** The current sort and where a heading's link goes to sort by another order; absent: plain headings. */
  readonly sorting?: { readonly order: Order | undefined; readonly at: (order: Order) => string };
  /** A column left out: the reference pointing back at the row whose Show lists these. */
  readonly omit?: string;
  /** A search's snippets of each row (HTML, matches in `<mark>`), shown in place of those fields' text. */
  readonly snippets?: ReadonlyMap<unknown, Readonly<Record<string, string | undefined>>>;
}

/**
 * One model's rows as a table, as its Index shows them and as another model's Show lists them:
 * a column per field (a reference as a link with its label), then the links to each row's Show
 * and, for a viewer who may change it, its Edit.
 *
 * The rows are written as HTML text as they are made (every text and attribute value escaped
 * with the renderer's own `escapeHtml`), not as a tree rendered afterwards: an Index of 50 rows
 * built some 750 nodes that all lived until the page was rendered, and under load, with many
 * requests in flight, that garbage cost fw's database pages more than anything a page does
 * (bench/FINDINGS.md 20). The bytes are the same.
 */
export class RowsTable<A> {
  readonly form: Form<A>;

  constructor(
    readonly model: ModelSpec<A>,
    private readonly actions: Actions,
    private readonly own: Access<A>,
    /** Which controls the model's guard shows this viewer (asked before the page renders). */
    private readonly gate: ControlGate = ControlGate.open,
  ) {
    this.form = new Form(model);
  }

  /** Whether a page links to New: mounted, and the model's guard shows it to this viewer. */
  offersNew(request: Request): boolean {
    return this.actions.has("New") && this.gate.lets(request, "New");
  }

  /** A control for `role` is shown when the role is mounted and would not refuse this viewer. */
  offers(request: Request, role: "Edit" | "Destroy", row: A): boolean {
    return this.offering(request, role).has(row);
  }

  /** Which rows `offers` shows the control for `role` on, as a test asked once for a table (who is looking is worked out once). */
  private offering(request: Request, role: "Edit" | "Destroy"): ShownRows<A> {
    return this.actions.has(role) && this.gate.lets(request, role) ? this.own.showing(request, role) : NO_ROW;
  }

  /**
   * A field's value as a cell's HTML: a reference's label (as a link), a file as a link to it (an
   * image as its thumbnail), else its text on one line, escaped. `rowPath` is the row's Show
   * path, escaped (where its files are served).
   */
  private cellHtml(request: Request, row: A, field: Field, labels: ReferenceLabels): string {
    if (field.input === "reference" || field.input === "references") return labels.cellHtml(row, field);
    if (field.input === "file") return this.fileCellHtml(request, row, field);
    // "Yes" or "No": one line already, and nothing in it to escape.
    if (field.input === "checkbox") return this.form.display(row, field);
    return oneLineHtml(this.form.display(row, field), CELL_LENGTH);
  }

  render(request: Request, rows: readonly A[], labels: ReferenceLabels, options: TableOptions = {}): Html {
    const links = this.actions.has("Show") || this.actions.has("Edit");
    const columns = this.form.shown.filter((field) => field.name !== options.omit);
    return (
      <table class="fw-index">
        <thead>
          <tr>
            {columns.map((field) => this.heading(field, options.sorting))}
            {links ? <th scope="col"><span class="fw-hidden">Links</span></th> : null}
          </tr>
        </thead>
        <tbody>{raw(this.rowsHtml(request, rows, columns, labels, links, options.snippets))}</tbody>
      </table>
    );
  }

  /** The table's rows as HTML: `<tr>`s of escaped cells, then the row's Show and Edit links. */
  private rowsHtml(request: Request, rows: readonly A[], columns: readonly Field[], labels: ReferenceLabels, links: boolean, snippets?: TableOptions["snippets"]): string {
    const shows = this.actions.has("Show");
    // The links' fillers, taken once for the table rather than looked up per row.
    const model = this.model as ModelSpec<unknown>;
    const showHref = hrefWriter(request, modelRowFiller(model, "Show"));
    const editHref = hrefWriter(request, modelRowFiller(model, "Edit"));
    const edits = links ? this.offering(request, "Edit") : NO_ROW;
    let html = "";
    for (const row of rows) {
      html += "<tr>";
      const key = (row as Record<string, unknown>)[this.model.key] as PathValue;
      const marked = snippets?.get(row);
      for (const field of columns) html += `<td>${marked?.[field.name] ?? this.cellHtml(request, row, field, labels)}</td>`;
      if (links) {
        // Once per row: the row's path and whether this user may edit it (an ownership or policy check, its viewer read once above).
        const editable = edits.has(row);
        const show = shows ? `<a href="${showHref(key)}">Show</a>` : "";
        const edit = editable ? `<a href="${editHref(key)}">Edit</a>` : "";
        html += `<td>${show}${shows && editable ? " " : ""}${edit}</td>`;
      }
      html += "</tr>";
    }
    return html;
  }

  /**
   * A file's cell: an image as its thumbnail (sized, so the table does not jump as it loads;
   * `alt` empty, as the row's own cells say what it is), any other file as a link with its name
   * and size. Empty without a file.
   */
  private fileCellHtml(request: Request, row: A, field: Field): string {
    const value = (row as Record<string, unknown>)[field.name];
    if (!isStoredFile(value)) return "";
    const key = (row as Record<string, unknown>)[this.model.key];
    const at = (variant?: string): string => escapeHtml(fileHref(request, this.model as ModelSpec<unknown>, key, field.name, value.key, variant));
    if (field.file?.image === true && "width" in value && "height" in value) {
      const size = variantSize(defaultVariants.thumb, value as StoredImage);
      return `<img src="${at("thumb")}" alt="" class="fw-thumb" width="${size.width}" height="${size.height}" loading="lazy">`;
    }
    return `<a href="${at()}" download>${escapeHtml(value.name)}</a> (${sizeText(value.size)})`;
  }

  /** A column heading: a link that sorts by it (ascending, or descending when it already sorts so), or plain. */
  private heading(field: Field, sorting: TableOptions["sorting"]): Html {
    // A list (many-to-many) has no order of its own to sort rows by.
    if (sorting === undefined || field.input === "references") return <th scope="col">{field.label}</th>;
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

/**
 * A row link's `href` value as HTML, `escapeHtml(request.href(fill(key)))`, for one table: a
 * whole-number key (the usual one) fills the pattern with digits, so when the mount prefix and
 * the pattern's own text need no escaping, neither does the link, and it is not scanned again
 * for each of the table's 40 to 100 links.
 */
function hrefWriter(request: Request, fill: (key: PathValue) => string): (key: PathValue) => string {
  const mount = request.href("");
  const sample = mount + fill(1);
  const plain = escapeHtml(sample) === sample;
  return (key) => (plain && isDigits(key) ? mount + fill(key) : escapeHtml(request.href(fill(key))));
}

