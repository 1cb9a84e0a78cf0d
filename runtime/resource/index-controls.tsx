/**
 * The derived Index's controls (issue 43, item 4): a GET form of its filters (derived from the
 * model's fields: a select for a union or a reference, a checkbox for a yes/no, a date range for a
 * date), its search box and its page size, and the pager's Previous and Next (keyset links). A
 * plain form and plain links: everything works without JavaScript, and lands in the URL.
 */
import type { Html } from "../html/node.js";
import { raw } from "../html/render.js";
import type { FilterChoices } from "./filter-options.js";
import type { Field } from "./form.js";
import { filterFields, PAGE_SIZE, PAGE_SIZES, type IndexFilter, type IndexQuery } from "./index-query.js";

/** What the filter form needs: the Index's address, its query, the filterable fields and the reference fields' choices. */
export interface ControlsProps {
  readonly action: string;
  readonly query: IndexQuery;
  readonly fields: readonly Field[];
  readonly choices: Readonly<Record<string, FilterChoices>>;
  /** What the search box searches, for its label ("Search posts"); absent: no search box. */
  readonly searchLabel?: string;
  /** Where the Index is without filters, search or cursor (its sort and size kept). */
  readonly clear: string;
}

/** The filter form: one control per filterable field, the search box, the page size; the sort kept. */
export function filterForm(props: ControlsProps): Html {
  const { query } = props;
  const filtered = (name: string): IndexFilter | undefined => query.filters.find((filter) => filter.field.name === name);
  const controls = filterFields(props.fields).map((field) => filterControl(field, filtered(field.name), props.choices[field.name]));
  const active = query.filters.length > 0 || query.search !== undefined;
  return (
    <form method="get" action={props.action} class="fw-filters" role="search">
      {props.searchLabel === undefined ? null : (
        <label class="fw-search">
          {props.searchLabel} <input type="search" name="q" value={query.search ?? ""} maxlength="200" />
        </label>
      )}
      {controls}
      <label class="fw-size">
        Per page{" "}
        <select name="size">
          {PAGE_SIZES.map((size) => <option value={String(size)} selected={size === query.size}>{String(size)}</option>)}
        </select>
      </label>
      {query.sort === undefined ? null : <input type="hidden" name="sort" value={`${query.sort.descending ? "-" : ""}${query.sort.field}`} />}
      <button type="submit">{props.searchLabel === undefined ? "Filter" : "Search"}</button>
      {active || query.size !== PAGE_SIZE ? <a href={props.clear} class="fw-clear">Clear</a> : null}
    </form>
  );
}

/** One field's control, showing the filter the URL applies. */
function filterControl(field: Field, filter: IndexFilter | undefined, choices: FilterChoices | undefined): Html {
  const label = field.label;
  switch (field.input) {
    case "select": {
      const value = filter?.kind === "select" ? filter.value : undefined;
      return (
        <label class="fw-filter">
          {label}{" "}
          <select name={field.name}>
            <option value="" selected={value === undefined}>Any</option>
            {(field.options ?? []).map((option) => <option value={option} selected={option === value}>{option}</option>)}
          </select>
        </label>
      );
    }
    case "checkbox":
      return (
        <label class="fw-filter">
          <input type="checkbox" name={field.name} value="true" checked={filter?.kind === "checkbox" && filter.value} /> {label}
        </label>
      );
    case "date": {
      const range = filter?.kind === "date" ? filter : undefined;
      return (
        <span class="fw-filter fw-range">
          <label>
            {label} from <input type="date" name={`${field.name}.from`} value={range?.from ?? ""} />
          </label>{" "}
          <label>
            to <input type="date" name={`${field.name}.to`} value={range?.to ?? ""} />
          </label>
        </span>
      );
    }
    default:
      return referenceFilter(field, filter?.kind === "reference" ? filter.value : undefined, choices);
  }
}

/** A reference's filter: a select of the rows the viewer may read (Any first), or, past the picker's limit, the number (the picker's script suggests rows). */
function referenceFilter(field: Field, value: number | undefined, choices: FilterChoices | undefined): Html {
  if (choices === undefined || choices.mode !== "written") {
    return (
      <label class="fw-filter">
        {field.label} <input type="search" name={field.name} value={value === undefined ? "" : String(value)} inputmode="numeric" autocomplete="off" data-fw-pick={choices?.pickPath} data-fw-label={choices?.chosen?.label} />
      </label>
    );
  }
  return (
    <label class="fw-filter">
      {field.label}{" "}
      <select name={field.name}>
        <option value="" selected={value === undefined}>Any</option>
        {raw(choices.html)}
      </select>
    </label>
  );
}

/** The pager: Previous and Next (keyset links, absent where there is no such page) and how many rows the list holds. */
export function pager(props: { readonly previous: string | undefined; readonly next: string | undefined; readonly total: number; readonly more: boolean; readonly many: string }): Html {
  const count = `${props.total.toLocaleString("en")}${props.more ? " or more" : ""} ${props.many.toLowerCase()}`;
  return (
    <nav class="fw-pager" aria-label="Pages">
      {props.previous === undefined ? null : <a href={props.previous} rel="prev">Previous</a>}
      <span>{count}</span>
      {props.next === undefined ? null : <a href={props.next} rel="next">Next</a>}
    </nav>
  );
}
