import { BadRequest, NotFound } from "../http/failure.js";
import { readWholeNumber } from "../http/number-text.js";
import type { Request } from "../http/request.js";
import { Ok, type Response } from "../http/response.js";
import type { Html } from "../html/node.js";
import type { Field } from "../resource/form.js";
import { labelField } from "../resource/labels.js";
import type { ModelPages } from "../resource/model-pages.js";
import { modelHref } from "../resource/model-paths.js";
import { countAhead, pagesCounted, type PagesCounted } from "../resource/page-count.js";
import { pageNumber } from "../resource/page-number.js";
import { keyText } from "../resource/picker.js";
import type { FieldValue, Order, Where } from "../resource/query.js";
import type { ReferenceLabels } from "../resource/reference-view.js";
import { PAGE_SIZE } from "../resource/read-pages.js";

/** The most characters of a search (`?q=`) read: a label's start. */
const MAX_SEARCH = 200;

/** What a back-office list shows: field equalities, a search of the label field, a sort, a page. */
interface ListQuery {
  readonly filters: readonly (readonly [Field, FieldValue])[];
  readonly search: string | undefined;
  readonly order: Order | undefined;
}

/**
 * A model's list in the back office: every row, whoever owns it, a page at a time, filtered by
 * what `Store.list` offers: a field's value (`?published=false`, `?category=news`, `?author=7`,
 * `?post=3`: checkboxes, choices, references, the owner, whole numbers) and a search of the
 * label field's start (`?q=`), sortable by any column as the derived Index is. A value a field
 * cannot hold is a 400 naming the field and what it takes.
 */
export class AdminIndex<A> {
  constructor(private readonly pages: ModelPages<A>) {}

  async page(request: Request): Promise<Response> {
    const { words, model, actions } = this.pages;
    const page = pageNumber(request.query.get("page"));
    const query: ListQuery = { filters: this.filters(request), search: this.search(request), order: this.sortOrder(request.query.get("sort")) };
    const label = labelField(model);
    const offset = (page - 1) * PAGE_SIZE;
    const countUpTo = countAhead(offset, PAGE_SIZE);
    // Checked against the model's fields above, so the cast holds.
    const where = Object.fromEntries(query.filters.map(([field, value]) => [field.name, value])) as Where<A>;
    const { rows, total } = await this.pages.own.whole.list({
      offset,
      limit: PAGE_SIZE,
      countUpTo,
      ...(query.order === undefined ? {} : { order: query.order }),
      ...(query.filters.length === 0 ? {} : { where }),
      ...(query.search === undefined || label === undefined ? {} : { search: { field: label.name, prefix: query.search } }),
    });
    const counted = pagesCounted(total, countUpTo, PAGE_SIZE);
    if (page > counted.last) throw new NotFound(`There is no page ${page} of ${words.many.toLowerCase()} here: there ${counted.last === 1 ? "is 1 page" : `are ${counted.last} pages`}.`);
    const labels = await this.pages.labels(request, rows);
    const narrowed = query.filters.length > 0 || query.search !== undefined;
    return Ok(
      <>
        <title>{`${words.many} · back office`}</title>
        <h1>{words.many}</h1>
        <p class="fw-admin-count">{countText(total, counted, words.one.toLowerCase(), words.many.toLowerCase())}{narrowed ? " match" : ""}</p>
        {this.filterForm(request, query, labels)}
        {actions.has("New") ? <p><a href={modelHref(request, model, "New")} class="fw-new">New {words.lower}</a></p> : null}
        {rows.length === 0 ? <p class="fw-empty">No {words.many.toLowerCase()}{narrowed ? " match" : " yet"}.</p> : this.pages.table.render(request, rows, labels, { sorting: { order: query.order, at: (order) => this.at(request, { ...query, order }) } })}
        {counted.last > 1 ? this.pager(request, page, counted, query) : null}
      </>,
    );
  }

  /** The fields a list filters by: those whose values are few or keys (checkboxes, choices, references, whole numbers). */
  private get filterable(): readonly Field[] {
    return this.pages.form.shown.filter((field) => field.input === "checkbox" || field.input === "select" || field.input === "reference" || (field.input === "number" && field.integer !== undefined));
  }

  /** `?field=value` for each filterable field named in the query, read as the field's type; anything else a 400. */
  private filters(request: Request): (readonly [Field, FieldValue])[] {
    const found: (readonly [Field, FieldValue])[] = [];
    for (const field of this.filterable) {
      const text = request.query.get(field.name);
      if (text === undefined || text === "") continue;
      found.push([field, this.valueOf(field, text)] as const);
    }
    return found;
  }

  private valueOf(field: Field, text: string): FieldValue {
    const refuse = (takes: string): never => {
      throw new BadRequest(`The list of ${this.pages.words.many.toLowerCase()} is filtered by ${field.label.toLowerCase()} with ${takes}, not ${JSON.stringify(text.slice(0, 40))}.`);
    };
    switch (field.input) {
      case "checkbox":
        return text === "true" ? true : text === "false" ? false : refuse("true or false");
      case "select":
        return field.options?.includes(text) === true ? text : refuse(`one of ${(field.options ?? []).join(", ")}`);
      case "reference":
        return keyText(text) ?? refuse("a number (a whole number from 1)");
      default: {
        const range = field.integer ?? { min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER };
        return readWholeNumber(text, range.min, range.max) ?? refuse(`a whole number from ${range.min} to ${range.max}`);
      }
    }
  }

  /** `?q=`: the start of the label field (the model's first text field), ignoring case; none when empty. */
  private search(request: Request): string | undefined {
    const text = (request.query.get("q") ?? "").trim().slice(0, MAX_SEARCH);
    return text === "" ? undefined : text;
  }

  /** `?sort=field` or `?sort=-field`: a shown field; anything else a 400 naming the columns. */
  private sortOrder(text: string | undefined): Order | undefined {
    if (text === undefined || text === "") return undefined;
    const descending = text.startsWith("-");
    const name = descending ? text.slice(1) : text;
    // A file, or a list of references (many-to-many), has no order to sort rows by.
    const sortable = (f: Field): boolean => f.input !== "file" && f.input !== "references";
    const field = this.pages.form.shown.find((f) => f.name === name && sortable(f));
    if (field !== undefined) return { field: name, descending };
    const names = this.pages.form.shown.filter(sortable).map((f) => f.name).join(", ");
    throw new BadRequest(`The list of ${this.pages.words.many.toLowerCase()} cannot be sorted by ${JSON.stringify(text.slice(0, 40))}: sort by one of ${names}, with "-" before it for descending order.`);
  }

  /** The filter form (a GET: the filters are the list's address, to bookmark or share). */
  private filterForm(request: Request, query: ListQuery, labels: ReferenceLabels): Html | null {
    const label = labelField(this.pages.model);
    const fields = this.filterable;
    if (label === undefined && fields.length === 0) return null;
    const chosen = new Map(query.filters.map(([field, value]) => [field.name, value]));
    return (
      <form method="get" action={modelHref(request, this.pages.model, "Index")} class="fw-admin-filter" role="search">
        {label === undefined ? null : (
          <label>
            {label.label} starts with <input type="search" name="q" value={query.search ?? ""} maxlength={String(MAX_SEARCH)} />
          </label>
        )}
        {fields.map((field) => this.filterInput(field, chosen.get(field.name), labels))}
        {query.order === undefined ? null : <input type="hidden" name="sort" value={`${query.order.descending ? "-" : ""}${query.order.field}`} />}
        <button type="submit">Filter</button> <a href={modelHref(request, this.pages.model, "Index")}>Clear</a>
      </form>
    );
  }

  private filterInput(field: Field, value: FieldValue | undefined, labels: ReferenceLabels): Html {
    if (field.input === "checkbox" || field.input === "select") {
      const options = field.input === "checkbox" ? [["true", "Yes"], ["false", "No"]] : (field.options ?? []).map((option) => [option, option]);
      return (
        <label>
          {field.label}{" "}
          <select name={field.name}>
            <option value="">Any</option>
            {options.map(([text, shown]) => (
              <option value={text} selected={value !== undefined && String(value) === text}>{shown}</option>
            ))}
          </select>
        </label>
      );
    }
    const named = field.reference === undefined || value === undefined ? undefined : labels.label(field.reference.model, value);
    return (
      <label>
        {field.label} (number) <input type="number" name={field.name} min="1" step="1" value={value === undefined ? "" : String(value)} />
        {named === undefined ? null : <span class="fw-admin-named"> {named}</span>}
      </label>
    );
  }

  /** The list's address with its filters, search, sort and page (defaults left out). */
  private at(request: Request, query: ListQuery, page = 1): string {
    const parts = new URLSearchParams();
    if (query.search !== undefined) parts.set("q", query.search);
    for (const [field, value] of query.filters) parts.set(field.name, String(value));
    if (query.order !== undefined) parts.set("sort", `${query.order.descending ? "-" : ""}${query.order.field}`);
    if (page > 1) parts.set("page", String(page));
    const text = parts.toString();
    const path = modelHref(request, this.pages.model, "Index");
    return text === "" ? path : `${path}?${text}`;
  }

  private pager(request: Request, page: number, { last, more }: PagesCounted, query: ListQuery): Html {
    return (
      <nav class="fw-pager" aria-label="Pages">
        {page > 1 ? <a href={this.at(request, query, page - 1)} rel="prev">Previous</a> : null}
        <span>Page {page} of {last}{more ? " or more" : ""}</span>
        {page < last ? <a href={this.at(request, query, page + 1)} rel="next">Next</a> : null}
      </nav>
    );
  }
}

/** "1 post", "12 posts", "more than 1,000 posts" (past what was counted). */
export function countText(total: number, counted: PagesCounted, one: string, many: string): string {
  if (counted.more) return `more than ${(total - 1).toLocaleString("en-US")} ${many}`;
  return `${total.toLocaleString("en-US")} ${total === 1 ? one : many}`;
}

/** A list's pager: previous and next, and which page of how many. */
export function pager(page: number, { last, more }: PagesCounted, at: (page: number) => string): Html {
  return (
    <nav class="fw-pager" aria-label="Pages">
      {page > 1 ? <a href={at(page - 1)} rel="prev">Previous</a> : null}
      <span>Page {page} of {last}{more ? " or more" : ""}</span>
      {page < last ? <a href={at(page + 1)} rel="next">Next</a> : null}
    </nav>
  );
}
