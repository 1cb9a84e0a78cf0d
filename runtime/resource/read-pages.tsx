import { BadRequest, NotFound } from "../http/failure.js";
import type { Request } from "../http/request.js";
import { Ok, status, type Response } from "../http/response.js";
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
import { countAhead, pagesCounted, type PagesCounted } from "./page-count.js";
import { pageNumber } from "./page-number.js";
import { keyText } from "./picker.js";
import type { Order, Where } from "./query.js";
import { StillReferenced } from "./store-errors.js";
import type { StoredImage } from "./file-types.js";
import { defaultVariants, isVariantName, variantSize } from "./image-variants.js";
import { filesOf, isStoredFile, sizeText } from "./model-files.js";
import type { Id } from "./types.js";
import { withArticle, wordsOf } from "./words.js";

/** Rows per index page; beyond it the index paginates with `?page=`. */
export const PAGE_SIZE = 50;

/** What an Index shows: a sort, and the references it is filtered by (`/comments?post=7`). */
interface IndexQuery {
  readonly order: Order | undefined;
  readonly filters: readonly (readonly [Field, number])[];
}

/** The derived Index, Show, Destroy's confirmation page and Destroy. */
export class ReadPages<A> {
  constructor(private readonly pages: ModelPages<A>) {}

  async index(request: Request): Promise<Response> {
    const { words, model, actions } = this.pages;
    const page = pageNumber(request.query.get("page"));
    const query: IndexQuery = { order: this.sortOrder(request.query.get("sort")), filters: this.filters(request) };
    const reading = this.pages.reading(request, "Index");
    const readable = reading instanceof Promise ? await reading : reading;
    // Checked against the model's fields above (its reference fields), so the cast holds.
    const where = Object.fromEntries(query.filters.map(([field, key]) => [field.name, key])) as Where<A>;
    const offset = (page - 1) * PAGE_SIZE;
    // Counted only 20 pages ahead: a page of a big table reads its rows, not the whole table.
    const countUpTo = countAhead(offset, PAGE_SIZE);
    const { rows, total } = await readable.list({
      offset,
      limit: PAGE_SIZE,
      countUpTo,
      ...(query.order === undefined ? {} : { order: query.order }),
      ...(query.filters.length === 0 ? {} : { where }),
    });
    const counted = pagesCounted(total, countUpTo, PAGE_SIZE);
    const last = counted.last;
    // Past the last page there is nothing to show; "No posts yet." would be untrue.
    if (page > last) throw new NotFound(`There is no page ${page} of ${words.many.toLowerCase()}: there ${last === 1 ? "is 1 page" : `are ${last} pages`}.`);
    // The filters' rows are labelled with the page's (one query per model either way).
    const labels = await this.pages.labels(request, query.filters.length === 0 ? rows : [...rows, where]);
    const heading = query.filters.length === 1 ? `${words.many} of ${this.filterLabel(query.filters[0] as readonly [Field, number], labels)}` : words.many;
    // New, from a filtered Index, comes with the filters' references filled in.
    const preset = Object.fromEntries(query.filters.map(([field, key]) => [field.name, key]));
    return Ok(
      <>
        <title>{heading}</title>
        <h1>{heading}</h1>
        {actions.has("New") ? <p><a href={modelHref(request, model, "New", undefined, preset)} class="fw-new">New {words.lower}</a></p> : null}
        {rows.length === 0 ? <p class="fw-empty">No {words.many.toLowerCase()} yet.</p> : this.pages.table.render(request, rows, labels, { sorting: { order: query.order, at: (order) => this.indexAt(request, { ...query, order }) } })}
        {last > 1 ? this.pager(request, page, counted, query) : null}
      </>,
    );
  }

  async show(request: Request): Promise<Response> {
    const { model, relations } = this.pages;
    const key = this.pages.keyOf(request);
    const row = await this.pages.found(this.pages.reading(request, "Show"), key);
    const heading = labelOf(model, row, key);
    const [labels, related] = await Promise.all([this.pages.labels(request, [row]), hasManySections(relations, model as ModelSpec<unknown>, key, request)]);
    const edits = this.pages.offers(request, "Edit", row);
    const deletes = this.pages.offers(request, "Destroy", row);
    return Ok(
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
    if (field.input === "reference") return labels.cell(row, field, HEADING_LENGTH);
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

  /**
   * The Index's reference filters (`/comments?post=7`): each reference field named in the query
   * with a key. A value that is no key is a 400 naming the field and what it takes.
   */
  private filters(request: Request): (readonly [Field, number])[] {
    const { words, model } = this.pages;
    const found: (readonly [Field, number])[] = [];
    for (const field of this.pages.references) {
      const text = request.query.get(field.name);
      if (text === undefined) continue;
      const key = keyText(text);
      if (key === undefined) {
        const target = withArticle(field.reference === undefined ? field.label.toLowerCase() : wordsOf({ name: field.reference.model, path: field.reference.path }).lower);
        throw new BadRequest(
          `The index of ${words.many.toLowerCase()} is filtered by ${field.label.toLowerCase()} with the number of ${target} (a whole number from 1: ${model.path}?${field.name}=7), not ${JSON.stringify(text.slice(0, 40))}.`,
        );
      }
      found.push([field, key] as const);
    }
    return found;
  }

  /** What an Index filtered by one reference is "of": the row's label when the viewer may read it, else "post 7". */
  private filterLabel([field, key]: readonly [Field, number], labels: Awaited<ReturnType<ModelPages<A>["labels"]>>): string {
    const reference = field.reference;
    if (reference === undefined) return `${field.label.toLowerCase()} ${key}`;
    return labels.label(reference.model, key) ?? unnamed({ name: reference.model, path: reference.path }, key).toLowerCase();
  }

  /**
   * The Index's `?sort=`: a field the index shows, `-` before it for descending (`?sort=-title`);
   * absent means key order. Anything else is a 400 naming the columns it may be.
   */
  private sortOrder(text: string | undefined): Order | undefined {
    if (text === undefined) return undefined;
    const { form, words } = this.pages;
    const descending = text.startsWith("-");
    const field = descending ? text.slice(1) : text;
    if (form.shown.some((f) => f.name === field)) return { field, descending };
    const names = form.shown.map((f) => f.name).join(", ");
    throw new BadRequest(`The index of ${words.many.toLowerCase()} cannot be sorted by ${JSON.stringify(text.slice(0, 40))}: sort by one of ${names}, with "-" before it for descending order (?sort=-${form.fields[0]?.name ?? "field"}).`);
  }

  /** The index's address with its filters, a sort and a page (page 1 and key order left out). */
  private indexAt(request: Request, query: IndexQuery, page = 1): string {
    const order = query.order;
    const parts = [
      ...query.filters.map(([field, key]) => `${encodeURIComponent(field.name)}=${key}`),
      order === undefined ? "" : `sort=${order.descending ? "-" : ""}${encodeURIComponent(order.field)}`,
      page === 1 ? "" : `page=${page}`,
    ].filter((p) => p !== "");
    const path = modelHref(request, this.pages.model, "Index");
    return parts.length === 0 ? path : `${path}?${parts.join("&")}`;
  }

  /** Previous and next, and where the page is: "Page 3 of 7", or "Page 3 of 23 or more" past what was counted. */
  private pager(request: Request, page: number, { last, more }: PagesCounted, query: IndexQuery): Html {
    return (
      <nav class="fw-pager" aria-label="Pages">
        {page > 1 ? <a href={this.indexAt(request, query, page - 1)} rel="prev">Previous</a> : null}
        <span>Page {page} of {last}{more ? " or more" : ""}</span>
        {page < last ? <a href={this.indexAt(request, query, page + 1)} rel="next">Next</a> : null}
      </nav>
    );
  }
}

/**
 * A text with its line breaks kept, as `<br>`s (Show: a long text reads as written): the lines
 * escaped and joined as HTML text, the bytes `<br />` nodes between them would render to.
 */
function withLineBreaks(text: string): Html | string {
  if (!/[\r\n]/.test(text)) return text;
  return raw(text.split(/\r\n?|\n/).map(escapeHtml).join("<br>"));
}
