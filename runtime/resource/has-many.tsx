import { NotFound } from "../http/failure.js";
import type { Request } from "../http/request.js";
import type { Html } from "../html/node.js";
import type { PathValue } from "../routing/fill-path.js";
import type { FieldSpec, ModelSpec } from "./model.js";
import { modelHref } from "./model-paths.js";
import { countAhead, pagesCounted, type PagesCounted } from "./page-count.js";
import { pageNumber } from "./page-number.js";
import { ownershipOf, viewerRows } from "./readable.js";
import { ReferenceLabels } from "./reference-view.js";
import type { RelatedModel, Relations } from "./relations.js";
import { RowsTable } from "./rows-table.js";
import { withArticle, wordsOf } from "./words.js";

/** Rows per list of referencing rows on a Show page; beyond it the list pages with `?comments_page=`. */
export const RELATED_PAGE_SIZE = 20;

/** One model's reference to the shown model, as Show lists it. */
export interface Referencing {
  readonly entry: RelatedModel;
  readonly field: FieldSpec;
  /** "Comments", or "Comments (see also)" for a second reference of the same model. */
  readonly heading: string;
  /** The query parameter of its page: `comments_page`, `comments_see_also_page`. */
  readonly parameter: string;
  /** The section's id, the pager links' fragment: `comments`, `comments-see-also`. */
  readonly id: string;
}

const tables = new WeakMap<RelatedModel, RowsTable<unknown>>();

/** A registered model's table, made once. */
export function tableOf(entry: RelatedModel): RowsTable<unknown> {
  let table = tables.get(entry);
  if (table === undefined) {
    table = new RowsTable(entry.model, entry.actions, ownershipOf(entry), entry.gate);
    tables.set(entry, table);
  }
  return table;
}

/**
 * The models whose references point at `model`, each reference once: a model pointing here
 * through one field (or through the field named after this model, `post` for Post) is listed
 * under its name ("Comments"); its other such fields under their label ("Comments (see also)").
 */
export function referencingOf(relations: Relations, model: Pick<ModelSpec<unknown>, "name">): readonly Referencing[] {
  // Every Show asks: worked out once per model while the registered models stay the same.
  let cached = referencings.get(relations);
  if (cached === undefined || cached.size !== relations.size) referencings.set(relations, (cached = { size: relations.size, byName: new Map() }));
  let found = cached.byName.get(model.name);
  if (found === undefined) cached.byName.set(model.name, (found = referencingFrom(relations, model)));
  return found;
}

/** `referencingOf`'s answers per app, with the number of models registered when they were made. */
const referencings = new WeakMap<Relations, { readonly size: number; readonly byName: Map<string, readonly Referencing[]> }>();

function referencingFrom(relations: Relations, model: Pick<ModelSpec<unknown>, "name">): Referencing[] {
  const found = relations.referencing(model.name);
  const named = model.name.charAt(0).toLowerCase() + model.name.slice(1);
  return found.map(({ model: entry, field }) => {
    const siblings = found.filter((other) => other.model === entry);
    const plain = siblings.length === 1 || field.name === named;
    const many = wordsOf(entry.model).many;
    const slug = entry.model.path.slice(1).replace(/-/g, "_");
    const snake = field.name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
    return {
      entry,
      field,
      heading: plain ? many : `${many} (${field.label.toLowerCase()})`,
      parameter: plain ? `${slug}_page` : `${slug}_${snake}_page`,
      id: plain ? slug.replace(/_/g, "-") : `${slug}-${snake}`.replace(/_/g, "-"),
    };
  });
}

/**
 * Show's lists of the rows pointing at the shown row (has-many), one section per referencing
 * model and field: the rows the viewer may read (as that model's Index reads them), in key
 * order, a page of `RELATED_PAGE_SIZE` at a time, in a table like its Index's without the
 * column pointing back; an "Add a comment" link pre-filling the reference when it mounts New
 * (not for a server-set field, which no form fills).
 * Each section costs one query for its rows and one per model its other references name.
 */
export function hasManySections(relations: Relations, model: ModelSpec<unknown>, key: unknown, request: Request): Html | Html[] | Promise<Html | Html[]> {
  const sections = referencingOf(relations, model).map((referencing) => section(relations, referencing, key, request));
  // A model nothing references has no section, at once; most are referenced by one other: its
  // section's own promise, without Promise.all's promises or a `then` to make it a list.
  if (sections.length === 0) return [];
  return sections.length === 1 ? (sections[0] as Promise<Html>) : Promise.all(sections);
}

/**
 * One section: its page of rows, then (when they point elsewhere) their labels, then the guard's
 * answer when it has one to give, each awaited only when it is a promise. Written as `then`s on
 * the list rather than as an async function, whose own promise and await every Show paid for;
 * a failure on the way (a bad page number, a page past the last) is a rejection, as it was.
 */
function section(relations: Relations, referencing: Referencing, key: unknown, request: Request): Promise<Html> {
  try {
    const { entry, field } = referencing;
    const page = pageNumber(request.query.get(referencing.parameter), referencing.parameter);
    const rowsOf = viewerRows(relations, entry, request, "Index");
    const offset = (page - 1) * RELATED_PAGE_SIZE;
    const countUpTo = countAhead(offset, RELATED_PAGE_SIZE);
    // A list (many-to-many: the posts of a tag) holds the key among others.
    const where = { [field.name]: field.input === "references" ? { has: key } : key };
    const wanted = { offset, limit: RELATED_PAGE_SIZE, countUpTo, where };
    const listing = rowsOf instanceof Promise ? rowsOf.then((readable) => readable.list(wanted)) : rowsOf.list(wanted);
    return listing.then(({ rows, total }) => {
      const counted = pagesCounted(total, countUpTo, RELATED_PAGE_SIZE);
      const last = counted.last;
      if (page > last) throw new NotFound(`There is no page ${page} of ${referencing.heading.toLowerCase()} here (?${referencing.parameter}=): there ${last === 1 ? "is 1 page" : `are ${last} pages`}.`);
      const others = entry.model.fields.filter((f) => (f.input === "reference" || f.input === "references") && f.name !== field.name);
      const shown = (labels: ReferenceLabels): Html | Promise<Html> => {
        // Whom the guard shows New and Edit to: asked only of a guard that says (no extra turn otherwise).
        const asked = entry.gate?.ask(request);
        const written = (): Html => sectionHtml(referencing, key, request, rows, labels, page, counted);
        return asked === undefined ? written() : asked.then(written);
      };
      return others.length === 0 || rows.length === 0 ? shown(ReferenceLabels.none) : ReferenceLabels.load(relations, others, rows, request).then(shown);
    });
  } catch (error) {
    return Promise.reject(error);
  }
}

/** A section's HTML: its heading, its rows' table (or that there are none), its pager, and its "Add a comment". */
function sectionHtml(referencing: Referencing, key: unknown, request: Request, rows: readonly unknown[], labels: ReferenceLabels, page: number, counted: PagesCounted): Html {
  const { entry, field } = referencing;
  const words = wordsOf(entry.model);
  const table = tableOf(entry);
  return (
    <section class="fw-related" id={referencing.id}>
      <h2>{referencing.heading}</h2>
      {rows.length === 0 ? <p class="fw-empty">No {referencing.heading.toLowerCase()} yet.</p> : table.render(request, rows, labels, { omit: field.name })}
      {counted.last > 1 ? pager(request, referencing, page, counted) : null}
      {table.offersNew(request) && field.serverSet === undefined ? (
        <p>
          <a href={modelHref(request, entry.model, "New", undefined, { [field.name]: key as PathValue })} class="fw-new">
            Add {withArticle(words.lower)}
          </a>
        </p>
      ) : null}
    </section>
  );
}

/** Previous and next pages of one section, keeping the rest of the query (the other sections' pages). */
function pager(request: Request, referencing: Referencing, page: number, { last, more }: PagesCounted): Html {
  const at = (n: number): string => {
    const query = new URLSearchParams([...request.query.entries()].filter(([name]) => name !== referencing.parameter));
    if (n > 1) query.set(referencing.parameter, String(n));
    const text = query.toString();
    return `${request.path}${text === "" ? "" : `?${text}`}#${referencing.id}`;
  };
  return (
    <nav class="fw-pager" aria-label={`Pages of ${referencing.heading.toLowerCase()}`}>
      {page > 1 ? <a href={at(page - 1)} rel="prev">Previous</a> : null}
      <span>Page {page} of {last}{more ? " or more" : ""}</span>
      {page < last ? <a href={at(page + 1)} rel="next">Next</a> : null}
    </nav>
  );
}
