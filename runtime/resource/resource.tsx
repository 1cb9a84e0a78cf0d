import { BadRequest, NotFound } from "../http/failure.js";
import type { Request } from "../http/request.js";
import { Ok, Redirect, status, type Response } from "../http/response.js";
import type { Html } from "../html/node.js";
import type { ParamDecoders } from "../routing/from-path.js";
import { Origin, Route, type HttpRoute } from "../routing/route.js";
import { ACTION_ORDER, Actions, type Action } from "./actions.js";
import { Form, VERSION_FIELD, type Field, type Values } from "./form.js";
import { FormErrors } from "./form-errors.js";
import { Conflict, DuplicateValue } from "./store-errors.js";
import type { ModelSpec } from "./model.js";
import type { Relations } from "./relations.js";
import type { OwnedDeclaration } from "./owned-declaration.js";
import { Ownership } from "./ownership.js";
import type { Order } from "./query.js";
import type { Draft, Store } from "./store.js";

/** Rows per index page; beyond it the index paginates with `?page=`. */
export const PAGE_SIZE = 50;

/** The flash entry a derived route writes after a change. */
export const NOTICE = "notice";

export interface ResourceOptions {
  readonly actions?: Actions;
  /** Where the model's source is, for `routes` and messages. */
  readonly source?: string;
  /**
   * The model's `owned` declaration (spec 2.13): the roles it `covers` read and write through
   * the current user's rows alone, and Create stamps the owner. `store` must be a `ScopedStore`.
   */
  readonly owned?: OwnedDeclaration;
  /**
   * The model's read scope (the companion's `publicWhen`, docs/guides/models-and-forms.md): a
   * boolean field; rows where it is true are readable by everyone, the rest by their owner
   * alone (Index lists them only to their owner, Show answers 404 to anyone else). Needs `owned`.
   */
  readonly publicWhen?: string;
  /**
   * The app's models, for a model with references or referenced by others: the generated
   * table passes one `Relations` to every model's routes, which register themselves in it.
   */
  readonly relations?: Relations;
}

/** The words a model's pages use: "Post", "post", "Posts". */
interface Words {
  readonly one: string;
  readonly lower: string;
  readonly many: string;
}

function wordsOf(model: ModelSpec<unknown>): Words {
  const spaced = model.name.replace(/([a-z0-9])([A-Z])/g, "$1 $2");
  const many = model.path.slice(1).replace(/-/g, " ");
  return { one: spaced, lower: spaced.toLowerCase(), many: many.charAt(0).toUpperCase() + many.slice(1) };
}

/**
 * The derived routes of one model (spec 4.4), in emit order Index, New, Show, Edit, Create,
 * Update, Destroy, only the mounted roles, each of origin Resource. Pages never show a control
 * that points at an unmounted route.
 */
export function resourceRoutes<A>(model: ModelSpec<A>, store: Store<A>, options: ResourceOptions = {}): HttpRoute[] {
  const pages = new Pages(model, Ownership.of(store, options.owned, model, options.publicWhen), options.actions ?? Actions.all);
  options.relations?.register({ model: model as ModelSpec<unknown>, store: store as Store<unknown>, actions: options.actions ?? Actions.all, owned: options.owned, publicWhen: options.publicWhen });
  const source = options.source ?? model.fqn;
  const one = `${model.path}/:${model.key}`;
  const params: ParamDecoders = { [model.key]: model.decodeKey };
  const shapes: Record<Action, () => HttpRoute> = {
    Index: () => Route.http({ method: "GET", path: model.path, handler: (r) => pages.index(r), origin: Origin.Resource, source }),
    New: () => Route.http({ method: "GET", path: `${model.path}/new`, handler: (r) => pages.fresh(r), origin: Origin.Resource, source, submits: { method: "POST", path: model.path } }),
    Show: () => Route.http({ method: "GET", path: one, handler: (r) => pages.show(r), params, origin: Origin.Resource, source }),
    Edit: () => Route.http({ method: "GET", path: `${one}/edit`, handler: (r) => pages.edit(r), params, origin: Origin.Resource, source, submits: { method: "PUT", path: one } }),
    Create: () => Route.http({ method: "POST", path: model.path, handler: (r) => pages.create(r), origin: Origin.Resource, source }),
    Update: () => Route.http({ method: "PUT", path: one, handler: (r) => pages.update(r), params, origin: Origin.Resource, source }),
    Destroy: () => Route.http({ method: "DELETE", path: one, handler: (r) => pages.destroy(r), params, origin: Origin.Resource, source }),
  };
  const actions = options.actions ?? Actions.all;
  const routes = ACTION_ORDER.filter((role) => actions.has(role)).map((role): HttpRoute => ({ ...shapes[role](), role }));
  // Destroy's confirmation step, a page that works without JavaScript: part of the Destroy role
  // (mounted, guarded and left out with it), placed before Destroy as Edit is before Update.
  if (!actions.has("Destroy")) return routes;
  const confirm: HttpRoute = {
    ...Route.http({ method: "GET", path: `${one}/delete`, handler: (r) => pages.confirm(r), params, origin: Origin.Resource, source, submits: { method: "DELETE", path: one } }),
    role: "Destroy",
  };
  const at = routes.findIndex((route) => route.method === "POST");
  return at === -1 ? [...routes.slice(0, -1), confirm, ...routes.slice(-1)] : [...routes.slice(0, at), confirm, ...routes.slice(at)];
}

/** The Resource derivation (spec 2.14): `Resource.routes(model, store)` builds a model's routes. */
export const Resource = { routes: resourceRoutes } as const;

/** How an edit form is shown again: the version it carries, its status, a message about the whole form. */
interface EditState {
  readonly version?: number | undefined;
  readonly status?: number;
  readonly message?: string;
}

/** The handlers behind the seven routes, sharing the model, its form and its store. */
class Pages<A> {
  private readonly form: Form<A>;
  private readonly words: Words;

  constructor(
    private readonly model: ModelSpec<A>,
    /** The whole table, or the current user's rows on a role the model's `owned` covers. */
    private readonly own: Ownership<A>,
    private readonly actions: Actions,
  ) {
    this.form = new Form(model);
    this.words = wordsOf(model as ModelSpec<unknown>);
  }

  async index(request: Request): Promise<Response> {
    const page = pageNumber(request.query.get("page"));
    const order = this.sortOrder(request.query.get("sort"));
    const readable = await this.own.reading(request, "Index");
    const { rows, total } = await readable.list({ offset: (page - 1) * PAGE_SIZE, limit: PAGE_SIZE, ...(order === undefined ? {} : { order }) });
    const last = Math.max(1, Math.ceil(total / PAGE_SIZE));
    // Past the last page there is nothing to show; "No posts yet." would be untrue.
    if (page > last) throw new NotFound(`There is no page ${page} of ${this.words.many.toLowerCase()}: there ${last === 1 ? "is 1 page" : `are ${last} pages`}.`);
    return Ok(
      <>
        <title>{this.words.many}</title>
        <h1>{this.words.many}</h1>
        {this.actions.has("New") ? <p><a href={request.href(`${this.model.path}/new`)} class="fw-new">New {this.words.lower}</a></p> : null}
        {rows.length === 0 ? <p class="fw-empty">No {this.words.many.toLowerCase()} yet.</p> : this.table(request, rows, order)}
        {last > 1 ? this.pager(request, page, last, order) : null}
      </>,
    );
  }

  fresh(request: Request, values: Values = {}, errors = FormErrors.none): Response {
    const message = this.aboutTheForm(errors);
    return status(
      errors.isEmpty ? 200 : 422,
      <>
        <title>{`New ${this.words.lower}`}</title>
        <h1>New {this.words.lower}</h1>
        {this.form.render({ action: request.href(this.model.path), method: "POST", csrf: request.csrf, values, errors, submit: `Create ${this.words.lower}`, ...(message === undefined ? {} : { message }) })}
        {this.backLink(request)}
      </>,
    );
  }

  async show(request: Request): Promise<Response> {
    const key = request.params[this.model.key];
    const row = await this.found(await this.own.reading(request, "Show"), key);
    const at = this.at(request, key);
    const heading = this.heading(row, key);
    return Ok(
      <>
        <title>{heading}</title>
        <h1>{heading}</h1>
        <dl class="fw-show">
          {this.form.shown.map((field) => [<dt>{field.label}</dt>, <dd>{withLineBreaks(this.form.display(row, field))}</dd>])}
        </dl>
        <p class="fw-controls">
          {this.offers(request, "Edit", row) ? <a href={`${at}/edit`} class="fw-edit">Edit</a> : null}
          {this.offers(request, "Edit", row) && this.offers(request, "Destroy", row) ? " " : null}
          {this.offers(request, "Destroy", row) ? <a href={`${at}/delete`} class="fw-destroy">Delete</a> : null}
        </p>
        {this.backLink(request)}
      </>,
    );
  }

  /**
   * Destroy's confirmation step (GET …/:id/delete): names the row and asks, with the one button
   * that sends the DELETE and a way back. No JavaScript: Show links here, and only this page's
   * form deletes. The same checks as Destroy (404, 403 for someone else's row).
   */
  async confirm(request: Request): Promise<Response> {
    const key = request.params[this.model.key];
    const row = await this.writable(request, "Destroy", key);
    const heading = this.heading(row, key);
    const back = this.actions.has("Show") ? this.at(request, key) : request.href(this.actions.has("Index") ? this.model.path : "/");
    return Ok(
      <>
        <title>{`Delete ${heading}?`}</title>
        <h1>Delete {heading}?</h1>
        <p class="fw-confirm">This {this.words.lower} will be deleted for good.</p>
        {/* A <div>: a <form> cannot sit in a <p> (the browser would close the <p> before it). */}
        <div class="fw-controls">
          {Form.button({ action: this.at(request, key), method: "DELETE", csrf: request.csrf, submit: `Delete ${this.words.lower}`, class: "fw-destroy" })}
          <a href={back} class="fw-cancel">Cancel</a>
        </div>
      </>,
    );
  }

  /** What a row is called on its pages: its first non-empty text field, else "Post 3". */
  private heading(row: A, key: unknown): string {
    for (const field of this.form.fields) {
      if (field.input !== "text") continue;
      const value = (row as Record<string, unknown>)[field.name];
      if (typeof value === "string" && value.trim() !== "") return oneLine(value, HEADING_LENGTH);
    }
    return `${this.words.one} ${String(key)}`;
  }

  /**
   * The edit form, filled from the row; after a failed Update, with what was typed and why,
   * carrying the version the user's change is based on (`state.version`), or after a conflict
   * the row's current one, so saving again is a deliberate overwrite.
   */
  async edit(request: Request, values?: Values, errors = FormErrors.none, state: EditState = {}): Promise<Response> {
    const key = request.params[this.model.key];
    const row = await this.writable(request, "Edit", key);
    const version = state.version ?? (await this.versionOf(key));
    const message = state.message ?? this.aboutTheForm(errors);
    return status(
      state.status ?? (errors.isEmpty ? 200 : 422),
      <>
        <title>{`Edit ${this.words.lower} ${String(key)}`}</title>
        <h1>Edit {this.words.lower} {String(key)}</h1>
        {this.form.render({
          action: this.at(request, key),
          method: "PUT",
          csrf: request.csrf,
          values: values ?? this.form.values(row),
          errors,
          submit: `Update ${this.words.lower}`,
          ...(version === undefined ? {} : { version }),
          ...(message === undefined ? {} : { message }),
        })}
        {this.actions.has("Show") ? <p><a href={this.at(request, key)}>Back to the {this.words.lower}</a></p> : this.backLink(request)}
      </>,
    );
  }

  async create(request: Request): Promise<Response> {
    const parsed = this.form.parse(request.form);
    if (!parsed.ok) return this.fresh(request, parsed.values, parsed.errors);
    let row: A;
    try {
      row = await this.own.creating(request).insert(this.stamped(parsed.draft, undefined));
    } catch (error) {
      if (!(error instanceof DuplicateValue)) throw error;
      return this.fresh(request, this.form.typed(request.form), this.taken(error));
    }
    const key = (row as Record<string, unknown>)[this.model.key];
    return this.done(request, `${this.words.one} created.`, this.actions.has("Show") ? this.at(request, key) : undefined);
  }

  /**
   * Writes the change. On a versioned store the form's `_version` goes along: a row saved by
   * someone else since the form was read is a `Conflict`, answered 409 with the form shown
   * again (the user's values, the row's new version, a message); a value a unique column
   * already holds is a `DuplicateValue`, answered 422 beside its field.
   */
  async update(request: Request): Promise<Response> {
    const key = request.params[this.model.key];
    const before = await this.writable(request, "Update", key);
    const expected = this.expectedVersion(request);
    const parsed = this.form.parse(request.form);
    if (!parsed.ok) return this.edit(request, parsed.values, parsed.errors, { version: expected });
    const draft = this.stamped(parsed.draft, before);
    try {
      const updated = expected === undefined ? await this.own.whole.update(key, draft) : await this.own.whole.update(key, draft, expected);
      if (updated === undefined) throw new NotFound(`There is no ${this.words.lower} ${String(key)}: it was deleted.`);
    } catch (error) {
      if (error instanceof DuplicateValue) return this.edit(request, this.form.typed(request.form), this.taken(error), { version: expected });
      if (!(error instanceof Conflict)) throw error;
      const now = await this.versionOf(key);
      if (now === undefined) throw new NotFound(`There is no ${this.words.lower} ${String(key)}: it was deleted while you edited it.`);
      return this.edit(request, this.form.typed(request.form), FormErrors.none, {
        version: now,
        status: 409,
        message:
          `Someone else saved this ${this.words.lower} after you opened this form, so your changes were not saved. ` +
          `The form shows your changes; the ${this.words.lower} now holds theirs. Save again to replace them with yours.`,
      });
    }
    return this.done(request, `${this.words.one} updated.`, this.actions.has("Show") ? this.at(request, key) : undefined);
  }

  /**
   * A form's draft with what the server sets (docs/guides/models-and-forms.md, "Server-set fields"): `createdAt` now on
   * Create, kept from the row on Update; `updatedAt` now on both; a `readonly` field kept from
   * the row (a store's update replaces the row, and the form never carries it).
   */
  private stamped(draft: Draft<A>, before: A | undefined): Draft<A> {
    const now = new Date();
    const out: Record<string, unknown> = { ...draft };
    for (const field of this.form.shown) {
      const kept = before === undefined ? undefined : (before as Record<string, unknown>)[field.name];
      if (field.serverSet === "updatedAt") out[field.name] = now;
      else if (field.serverSet === "createdAt") out[field.name] = before === undefined ? now : kept;
      else if (field.serverSet === "readOnly" && kept !== undefined) out[field.name] = kept;
    }
    return out as Draft<A>;
  }

  /** The row's current version, on a store that versions its rows; else undefined. */
  private async versionOf(key: unknown): Promise<number | undefined> {
    const store = this.own.whole;
    return store.read === undefined ? undefined : (await store.read(key))?.version;
  }

  /**
   * The version an Update's form was read at (`_version`), on a store that versions its rows;
   * undefined without one (a form made by hand: the last write wins). Not a version: 400.
   */
  private expectedVersion(request: Request): number | undefined {
    if (this.own.whole.read === undefined) return undefined;
    const raw = request.form.get(VERSION_FIELD);
    if (raw === undefined) return undefined;
    const version = /^[1-9][0-9]{0,9}$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isSafeInteger(version)) throw new BadRequest(`The form's ${VERSION_FIELD} must be the version of the ${this.words.lower} it edits (a whole number from 1), not ${JSON.stringify(raw.slice(0, 40))}.`);
    return version;
  }

  /** Problems of no field the form shows (a unique column outside the form), said above the form. */
  private aboutTheForm(errors: FormErrors): string | undefined {
    const shown = new Set(this.form.fields.map((field) => field.name));
    const others = errors.problems.filter((problem) => !shown.has(problem.field));
    return others.length === 0 ? undefined : others.map((problem) => problem.message).join(" ");
  }

  /** A `DuplicateValue` as the problem beside its field (or about the form when no field shows it). */
  private taken(error: DuplicateValue): FormErrors {
    const field = this.form.fields.find((f) => f.name === error.field);
    const label = field?.label ?? error.field;
    return new FormErrors([{ field: error.field, kind: "invalid", message: `${label} is already taken: another ${this.words.lower} has this ${label.toLowerCase()}.` }]);
  }

  async destroy(request: Request): Promise<Response> {
    const key = request.params[this.model.key];
    await this.writable(request, "Destroy", key);
    await this.own.whole.delete(key);
    return this.done(request, `${this.words.one} deleted.`, undefined);
  }

  /** 303 with a flash to `target`, else the nearest mounted page: Index, then the table's home. */
  private done(request: Request, notice: string, target: string | undefined): Response {
    const to = target ?? request.href(this.actions.has("Index") ? this.model.path : "/");
    return Redirect(to).withSession(request.session.flash(NOTICE, notice));
  }

  private async found(store: Store<A>, key: unknown): Promise<A> {
    const row = await store.get(key);
    if (row === undefined) throw new NotFound(`There is no ${this.words.lower} ${String(key)}.`);
    return row;
  }

  /**
   * The row a form page or a change works on: 404 when there is none (or, under a read scope,
   * none this viewer may read), 403 when it is someone else's on a covered role.
   */
  private async writable(request: Request, role: Action, key: unknown): Promise<A> {
    const row = await this.found(this.own.scopesReads ? await this.own.reading(request, "Show") : this.own.whole, key);
    this.own.checkWrite(request, role, row);
    return row;
  }

  /** A control for `role` is shown when the role is mounted and would not refuse this viewer. */
  private offers(request: Request, role: Action, row: A): boolean {
    return this.actions.has(role) && this.own.shows(request, role, row);
  }

  /** A row's Show path as this request reaches the table (under its `Route.under` prefix). */
  private at(request: Request, key: unknown): string {
    return request.href(`${this.model.path}/${encodeURIComponent(String(key))}`);
  }

  private backLink(request: Request): Html | null {
    return this.actions.has("Index") ? <p><a href={request.href(this.model.path)} class="fw-back">Back to {this.words.many.toLowerCase()}</a></p> : null;
  }

  /**
   * The Index's `?sort=`: a field the index shows, `-` before it for descending (`?sort=-title`);
   * absent means key order. Anything else is a 400 naming the columns it may be.
   */
  private sortOrder(text: string | undefined): Order | undefined {
    if (text === undefined) return undefined;
    const descending = text.startsWith("-");
    const field = descending ? text.slice(1) : text;
    if (this.form.shown.some((f) => f.name === field)) return { field, descending };
    const names = this.form.shown.map((f) => f.name).join(", ");
    throw new BadRequest(`The index of ${this.words.many.toLowerCase()} cannot be sorted by ${JSON.stringify(text.slice(0, 40))}: sort by one of ${names}, with "-" before it for descending order (?sort=-${this.form.fields[0]?.name ?? "field"}).`);
  }

  /** The index's address with a sort and a page (page 1 and key order left out). */
  private indexAt(request: Request, order: Order | undefined, page = 1): string {
    const query = [order === undefined ? "" : `sort=${order.descending ? "-" : ""}${encodeURIComponent(order.field)}`, page === 1 ? "" : `page=${page}`].filter((p) => p !== "");
    const path = request.href(this.model.path);
    return query.length === 0 ? path : `${path}?${query.join("&")}`;
  }

  /** A column heading: a link that sorts by it (ascending, or descending when it already sorts so). */
  private columnHeading(request: Request, field: Field, order: Order | undefined): Html {
    const sorted = order?.field === field.name;
    const next = { field: field.name, descending: sorted && order?.descending !== true };
    const state = !sorted ? undefined : order?.descending === true ? "descending" : "ascending";
    return (
      <th scope="col" aria-sort={state}>
        <a href={this.indexAt(request, next)}>{field.label}</a>
        {state === undefined ? null : state === "ascending" ? " ▲" : " ▼"}
      </th>
    );
  }

  private table(request: Request, rows: readonly A[], order: Order | undefined): Html {
    const keyOf = (row: A): unknown => (row as Record<string, unknown>)[this.model.key];
    const links = this.actions.has("Show") || this.actions.has("Edit");
    const shows = this.actions.has("Show");
    return (
      <table class="fw-index">
        <thead>
          <tr>
            {this.form.shown.map((field) => this.columnHeading(request, field, order))}
            {links ? <th scope="col"><span class="fw-hidden">Links</span></th> : null}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => {
            // Once per row: the row's path and whether this user may edit it (an ownership check).
            const at = links ? this.at(request, keyOf(row)) : "";
            const edits = links && this.offers(request, "Edit", row);
            return (
              <tr>
                {this.form.shown.map((field) => <td>{oneLine(this.form.display(row, field), CELL_LENGTH)}</td>)}
                {links ? (
                  <td>
                    {shows ? <a href={at}>Show</a> : null}
                    {shows && edits ? " " : null}
                    {edits ? <a href={`${at}/edit`}>Edit</a> : null}
                  </td>
                ) : null}
              </tr>
            );
          })}
        </tbody>
      </table>
    );
  }

  private pager(request: Request, page: number, last: number, order: Order | undefined): Html {
    return (
      <nav class="fw-pager" aria-label="Pages">
        {page > 1 ? <a href={this.indexAt(request, order, page - 1)} rel="prev">Previous</a> : null}
        <span>Page {page} of {last}</span>
        {page < last ? <a href={this.indexAt(request, order, page + 1)} rel="next">Next</a> : null}
      </nav>
    );
  }
}

function pageNumber(text: string | undefined): number {
  if (text === undefined) return 1;
  const page = Number(text);
  if (!/^[1-9][0-9]{0,8}$/.test(text) || !Number.isSafeInteger(page)) {
    throw new BadRequest(`The page number ${JSON.stringify(text)} is not a whole number from 1 up.`);
  }
  return page;
}

/** The most characters an index cell and a page heading show of a text (then "…"). */
const CELL_LENGTH = 80;
const HEADING_LENGTH = 120;

/** A text as one line of at most `limit` characters: its first line, cut with "…" when longer (the index's cells). */
function oneLine(text: string, limit: number): string {
  const start = text.trimStart();
  const breakAt = start.search(/[\r\n]/);
  const first = breakAt === -1 ? start : start.slice(0, breakAt);
  const more = breakAt !== -1 && start.slice(breakAt).trim() !== "";
  // Walk at most `limit` code points (a surrogate pair is one), never the whole text: an Index
  // of 50 rows calls this for every cell, and a body can be 10,000 characters.
  let end = 0;
  for (let points = 0; end < first.length && points < limit; points++) {
    const unit = first.charCodeAt(end);
    end += unit >= 0xd800 && unit <= 0xdbff && end + 1 < first.length ? 2 : 1;
  }
  return more || end < first.length ? `${first.slice(0, end).trimEnd()}…` : first;
}

/** A text with its line breaks kept, as `<br>`s (Show: a long text reads as written). */
function withLineBreaks(text: string): Html | string {
  if (!/[\r\n]/.test(text)) return text;
  const lines = text.split(/\r\n?|\n/);
  return <>{lines.flatMap((line, i) => (i === 0 ? [line] : [<br />, line]))}</>;
}
