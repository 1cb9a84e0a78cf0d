import { NotFound } from "../http/failure.js";
import type { Request } from "../http/request.js";
import { Ok, OkOnce, status, type Response } from "../http/response.js";
import type { Html } from "../html/node.js";
import { escapeHtml, raw } from "../html/render.js";
import { blockedSentence, blockers, deleteEffects, sideEffects } from "./delete-effects.js";
import { Form, type Field } from "./form.js";
import { hasManySections } from "./has-many.js";
import { labelOf, unnamed } from "./labels.js";
import type { FieldSpec, ModelSpec } from "./model.js";
import type { ModelPages } from "./model-pages.js";
import { modelHref } from "./model-paths.js";
import { HEADING_LENGTH } from "./one-line.js";
import { countAhead, pagesCounted } from "./page-count.js";
import type { FilterChoices } from "./filter-options.js";
import { filterForm, pager } from "./index-controls.js";
import { filtersWhere, indexOrders, indexQueryText, readIndexQuery, type IndexChange, type IndexModel, type IndexQuery } from "./index-query.js";
import { pickerScriptUrl } from "./picker-script.js";
import type { SearchPage, Where } from "./query.js";
import type { Store } from "./store.js";
import { StillReferenced } from "./store-errors.js";
import type { StoredImage } from "./file-types.js";
import { defaultVariants, isVariantName, variantSize } from "./image-variants.js";
import { filesOf, isStoredFile, sizeText } from "./model-files.js";
import type { Id } from "./types.js";

export { PAGE_SIZE } from "./index-query.js";

/** The filter choices of a model without references: none, shared by every request. */
const NO_CHOICES: Readonly<Record<string, FilterChoices>> = Object.freeze({});

/** A search's snippets of each row it found (HTML by field), by row. */
type Snippets = ReadonlyMap<unknown, Readonly<Record<string, string | undefined>>>;

/** The derived Index, Show, Destroy's confirmation page and Destroy. */
export class ReadPages<A> {
  constructor(private readonly pages: ModelPages<A>) {}

  /**
   * The rows the viewer may read, filtered, searched and sorted as the URL says (index-query.ts),
   * a keyset page at a time (`?after=`, `?before=`: stable while rows are added, and page 10,000
   * costs what page 1 costs), with the filter form and the pager (index-controls.tsx). The rows
   * are counted only as far as `PAGES_AHEAD` (10) pages ahead.
   */
  async index(request: Request): Promise<Response> {
    const { words, model } = this.pages;
    const query = readIndexQuery(request.query, this.indexModel());
    // Whom the guard shows New and Edit to: asked only of a guard that says (no extra turn otherwise).
    const asked = this.pages.askGate(request);
    if (asked !== undefined) await asked;
    const reading = this.pages.reading(request, "Index");
    const readable = reading instanceof Promise ? await reading : reading;
    const orders = indexOrders(query.sort, model as ModelSpec<unknown>);
    const where = filtersWhere(query.filters) as Where<A>;
    const keyset = query.after !== undefined || query.before !== undefined;
    const offset = keyset ? 0 : (query.page - 1) * query.size;
    const countUpTo = countAhead(offset, query.size);
    const listing =
      query.search === undefined
        ? readable.list({
            offset,
            limit: query.size,
            countUpTo,
            order: orders,
            where,
            ...(query.after === undefined ? {} : { after: query.after }),
            ...(query.before === undefined ? {} : { before: query.before }),
          })
        : this.searchPage(readable, query.search, { offset, limit: query.size, countUpTo, where });
    // A model without references has no filter choices to read: its list is awaited alone (no Promise.all, no async call).
    const [page, choices] = this.pages.references.length === 0 ? [await listing, NO_CHOICES] : await Promise.all([listing, this.filterChoices(request, query)]);
    const { rows, total } = page;
    const snippets = "snippets" in page ? (page.snippets as Snippets) : undefined;
    const counted = pagesCounted(total, countUpTo, query.size);
    // Past the last page there is nothing to show; "No posts yet." would be untrue.
    if (!keyset && query.page > counted.last) throw new NotFound(`There is no page ${query.page} of ${words.many.toLowerCase()}: there ${counted.last === 1 ? "is 1 page" : `are ${counted.last} pages`}.`);
    const references = query.filters.flatMap((filter) => (filter.kind === "reference" ? [filter] : []));
    const labelling = this.pages.labels(request, references.length === 0 ? rows : [...rows, Object.fromEntries(references.map((filter) => [filter.field.name, filter.value]))]);
    const rowLabels = labelling instanceof Promise ? await labelling : labelling;
    const heading = references.length === 1 && query.filters.length === 1 ? `${words.many} of ${this.filterLabel([references[0]?.field as Field, references[0]?.value as number], rowLabels)}` : words.many;
    // New, from a filtered Index, comes with the filters' references filled in.
    const preset = Object.fromEntries(references.map((filter) => [filter.field.name, filter.value]));
    const at = modelHref(request, model, "Index");
    const link = (change: IndexChange): string => `${at}${indexQueryText(query, model as ModelSpec<unknown>, change)}`;
    const more = page.more === true;
    // A search's results are ranked: paged by number (?page=); a list pages by its sort key.
    const paged = keyset || query.search === undefined;
    const previous =
      rows.length === 0 ? undefined : !keyset && query.page > 1 ? link(paged ? { before: rows[0] } : { page: query.page - 1 }) : query.after !== undefined || (query.before !== undefined && more) ? link({ before: rows[0] }) : undefined;
    const next =
      rows.length === 0 ? undefined : !keyset && total > offset + rows.length ? link(paged ? { after: rows[rows.length - 1] } : { page: query.page + 1 }) : query.before !== undefined || (query.after !== undefined && more) ? link({ after: rows[rows.length - 1] }) : undefined;
    const filtering = query.filters.length > 0 || query.search !== undefined;
    return OkOnce(
      <>
        <title>{heading}</title>
        <h1>{heading}</h1>
        {this.pages.offersNew(request) ? <p><a href={modelHref(request, model, "New", undefined, preset)} class="fw-new">New {words.lower}</a></p> : null}
        {filterForm({ action: at, query, fields: this.pages.form.shown, choices, clear: `${at}${indexQueryText(unfiltered(query), model as ModelSpec<unknown>)}`, ...(this.pages.searchLabel === undefined ? {} : { searchLabel: this.pages.searchLabel }) })}
        {rows.length === 0 ? (
          <p class="fw-empty">{filtering ? `No ${words.many.toLowerCase()} match.` : `No ${words.many.toLowerCase()} yet.`}</p>
        ) : (
          this.pages.table.render(request, rows, rowLabels, snippets !== undefined ? { snippets } : { sorting: { order: query.sort, at: (order) => link({ sort: order }) } })
        )}
        {previous === undefined && next === undefined && total <= rows.length ? null : pager({ previous, next, total: counted.more ? countUpTo - 1 : total, more: counted.more, many: words.many })}
        {Object.values(choices).some((c) => c.mode === "search") ? <script src={pickerScriptUrl()} defer></script> : null}
      </>,
    );
  }

  /** What reading the Index's URL needs of the model. */
  private indexModel(): IndexModel {
    return { model: this.pages.model as ModelSpec<unknown>, shown: this.pages.form.shown, many: this.pages.words.many.toLowerCase(), searchable: this.pages.searchLabel !== undefined };
  }

  /** A page of a search's hits as the Index lists them: the rows, best first, and each one's snippets. */
  private async searchPage(readable: Store<A>, text: string, page: SearchPage<A>): Promise<{ rows: A[]; total: number; more?: boolean; snippets: Snippets }> {
    const { hits, total } = await readable.search(text, page);
    const rows = hits.map((hit) => hit.row);
    return { rows, total, snippets: new Map(hits.map((hit) => [hit.row, hit.snippets as Record<string, string | undefined>])) };
  }

  /**
   * The choices of the reference fields' filters (`Picker.filterChoices`: a select's options
   * already written, or a search past its limit): one query per model they point at, however
   * many fields point at it.
   */
  private async filterChoices(request: Request, query: IndexQuery): Promise<Readonly<Record<string, FilterChoices>>> {
    const references = this.pages.references;
    const value = (field: Field): number | undefined => {
      const filter = query.filters.find((one) => one.field.name === field.name);
      return filter?.kind === "reference" ? filter.value : undefined;
    };
    const byTarget = new Map<string, Promise<FilterChoices | undefined>>();
    const choices = await Promise.all(
      references.map((field) => {
        const target = field.reference?.model ?? field.name;
        // A filter naming a row is resolved for itself (its option selected, or its label shown beside a search input).
        if (value(field) !== undefined) return this.pages.picker.filterChoices(request, field, value(field));
        let shared = byTarget.get(target);
        if (shared === undefined) byTarget.set(target, (shared = this.pages.picker.filterChoices(request, field, undefined)));
        return shared;
      }),
    );
    const out: Record<string, FilterChoices> = {};
    references.forEach((field, i) => {
      const one = choices[i];
      if (one !== undefined) out[field.name] = one;
    });
    return out;
  }

  async show(request: Request): Promise<Response> {
    const { model, relations } = this.pages;
    const key = this.pages.keyOf(request);
    // The row awaited and then checked, not through `found`'s `then`: a promise and a reaction fewer a page.
    const row = this.pages.present(await this.pages.got(this.pages.reading(request, "Show"), key), key);
    const heading = labelOf(model, row, key);
    const labelling = this.pages.labels(request, [row]);
    const sections = hasManySections(relations, model as ModelSpec<unknown>, key, request);
    // Whom the guard shows Edit and Delete to: asked only of a guard that says (control-gate.ts).
    const asking = this.pages.askGate(request);
    const settled = both(labelling, sections, asking);
    const [labels, related] = settled instanceof Promise ? await settled : settled;
    const edits = this.pages.offers(request, "Edit", row);
    const deletes = this.pages.offers(request, "Destroy", row);
    return OkOnce(
      <>
        <title>{heading}</title>
        <h1>{heading}</h1>
        <dl class="fw-show">
          {this.pages.form.shown.map((field) => [<dt>{field.label}</dt>, <dd>{this.shownValue(request, row, key, field, labels, heading)}</dd>])}
        </dl>
        <p class="fw-controls">
          {edits ? <a href={modelHref(request, model, "Edit", key)} class="fw-edit">Edit</a> : null}
          {edits && deletes ? " " : null}
          {deletes ? <a href={modelHref(request, model, "Confirm", key)} class="fw-destroy">Delete</a> : null}
        </p>
        {related}
        {this.pages.backLink(request)}
      </>,
    );
  }

  /**
   * Destroy's confirmation step (GET …/:id/delete): names the row and asks, with the one button
   * that sends the DELETE and a way back. No JavaScript: Show links here, and only this page's
   * form deletes. The same checks as Destroy (404, 403 for someone else's row). It says what the
   * delete also does to the rows pointing here (deleted with it, or cleared), or, when rows that
   * restrict it still point here, that it cannot be done, and offers no Delete button.
   */
  async confirm(request: Request): Promise<Response> {
    const { model, words, actions, relations } = this.pages;
    const key = this.pages.keyOf(request);
    const row = await this.pages.writable(request, "Destroy", key);
    const heading = labelOf(model, row, key);
    const back = actions.has("Show") ? this.pages.at(request, key) : this.pages.home(request);
    const effects = await deleteEffects(relations, model, key);
    const blocked = blockers(effects).length > 0;
    return Ok(
      <>
        <title>{`Delete ${heading}?`}</title>
        <h1>Delete {heading}?</h1>
        {blocked ? blockedSentence((path) => request.href(path), words.lower, effects, key) : <p class="fw-confirm">This {words.lower} will be deleted for good.</p>}
        {blocked ? null : sideEffects(effects)}
        {/* A <div>: a <form> cannot sit in a <p> (the browser would close the <p> before it). */}
        <div class="fw-controls">
          {blocked ? null : Form.button({ action: this.pages.at(request, key), method: "DELETE", csrf: request.csrf, submit: `Delete ${words.lower}`, class: "fw-destroy" })}
          <a href={back} class="fw-cancel">{blocked ? "Back" : "Cancel"}</a>
        </div>
      </>,
    );
  }

  /**
   * A field's value on Show: a reference's label (a link), an image (its large variant, `alt` the
   * row's label), another file as a download link with its name and size, else the text.
   */
  private shownValue(request: Request, row: A, key: Id<A>, field: Field, labels: Awaited<ReturnType<ModelPages<A>["labels"]>>, label: string): Html | string {
    if (field.input === "reference" || field.input === "references") return labels.cell(row, field, HEADING_LENGTH);
    if (field.input !== "file") return withLineBreaks(this.pages.form.display(row, field));
    const file = (row as Record<string, unknown>)[field.name];
    if (!isStoredFile(file)) return "";
    const href = this.pages.fileHref(request, key, field, file);
    if (field.file?.image === true && "width" in file) {
      const size = variantSize(defaultVariants.large, file as StoredImage);
      return (
        <a href={href} class="fw-image">
          <img src={this.pages.fileHref(request, key, field, file, "large")} alt={label} width={String(size.width)} height={String(size.height)} />
        </a>
      );
    }
    return (
      <>
        <a href={href} download>{file.name}</a> ({sizeText(file.size)})
      </>
    );
  }

  /**
   * A row's file, or a variant of its image: found through the row as Show reads it (404 for a
   * row the viewer may not read, a key that is not the row's file now, a variant fw does not make).
   */
  async file(request: Request, field: FieldSpec, variant: string | undefined): Promise<Response> {
    const key = this.pages.keyOf(request);
    const row = await this.pages.found(this.pages.reading(request, "Show"), key);
    const file = (row as Record<string, unknown>)[field.name];
    if (!isStoredFile(file) || file.key !== request.params["fileKey"]) throw new NotFound(`This ${this.pages.words.lower} holds no such file.`);
    if (variant !== undefined && !isVariantName(variant)) throw new NotFound(`There is no ${JSON.stringify(variant.slice(0, 40))} size of this image: there are ${Object.keys(defaultVariants).join(" and ")}.`);
    return this.pages.filesOrFail().serve(request, field, file, variant);
  }

  /** Deletes the row; while rows that restrict it point here (`StillReferenced`), 409 with a page saying which. */
  async destroy(request: Request): Promise<Response> {
    const { model, words, relations } = this.pages;
    const key = this.pages.keyOf(request);
    const row = await this.pages.writable(request, "Destroy", key);
    try {
      await this.pages.own.whole.delete(key);
    } catch (error) {
      if (!(error instanceof StillReferenced)) throw error;
      const heading = labelOf(model, row, key);
      const effects = await deleteEffects(relations, model, key);
      return status(
        409,
        <>
          <title>{`${heading} cannot be deleted`}</title>
          <h1>{heading} cannot be deleted</h1>
          {blockedSentence((path) => request.href(path), words.lower, effects, key, error, relations)}
          <p class="fw-controls">
            <a href={this.pages.actions.has("Show") ? this.pages.at(request, key) : this.pages.home(request)} class="fw-cancel">Back</a>
          </p>
        </>,
      );
    }
    // Its files go once the row is gone (a job deletes them, retried; model-files.ts).
    const files = filesOf(row, this.pages.fileFields);
    if (files.length > 0) await this.pages.filesOrFail().release(files);
    return this.pages.done(request, `${words.one} deleted.`, undefined);
  }

  /** What an Index filtered by one reference is "of": the row's label when the viewer may read it, else "post 7". */
  private filterLabel([field, key]: readonly [Field, number], labels: Awaited<ReturnType<ModelPages<A>["labels"]>>): string {
    const reference = field.reference;
    if (reference === undefined) return `${field.label.toLowerCase()} ${key}`;
    return labels.label(reference.model, key) ?? unnamed({ name: reference.model, path: reference.path }, key).toLowerCase();
  }
}

/**
 * Show's labels and its has-many sections, with the guard's answer when it was asked: awaited
 * together (either may fail while the other waits, so neither is awaited alone while the other
 * is pending), each promise once. A model without references nor rows pointing at it waits for
 * nothing: no turn, no promise; a page with one of the two awaits it alone; no `Promise.all`
 * entry for a guard that was not asked (its entry cost a promise and a reaction every page).
 */
function both<L, S>(labelling: L | Promise<L>, sections: S | Promise<S>, asking: void | Promise<void>): readonly [L, S, ...unknown[]] | Promise<readonly [L, S, ...unknown[]]> {
  if (asking !== undefined) return Promise.all([labelling, sections, asking]);
  if (labelling instanceof Promise) return sections instanceof Promise ? Promise.all([labelling, sections]) : labelling.then((labels) => [labels, sections]);
  return sections instanceof Promise ? sections.then((related) => [labelling, related]) : [labelling, sections];
}

/** The query without its filters and search (its sort and size kept): where "Clear" goes. */
function unfiltered(query: IndexQuery): IndexQuery {
  const { search: _search, ...rest } = query;
  return { ...rest, filters: [] };
}

/**
 * A text with its line breaks kept, as `<br>`s (Show: a long text reads as written): the lines
 * escaped and joined as HTML text, the bytes `<br />` nodes between them would render to.
 */
function withLineBreaks(text: string): Html | string {
  if (!/[\r\n]/.test(text)) return text;
  return raw(text.split(/\r\n?|\n/).map(escapeHtml).join("<br>"));
}
