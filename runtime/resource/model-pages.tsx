import { NotFound } from "../http/failure.js";
import type { Request } from "../http/request.js";
import { Redirect, type Response } from "../http/response.js";
import type { Html } from "../html/node.js";
import type { Action, Actions } from "./actions.js";
import type { Form } from "./form.js";
import type { FieldSpec, ModelSpec } from "./model.js";
import type { StoredFile } from "./file-types.js";
import { fileFields, type ModelFiles } from "./model-files.js";
import type { Access } from "./ownership.js";
import { fileHref, modelHref } from "./model-paths.js";
import { Picker } from "./picker.js";
import { viewerRows } from "./readable.js";
import { ReferenceLabels } from "./reference-view.js";
import type { RelatedModel, Relations } from "./relations.js";
import { RowsTable } from "./rows-table.js";
import type { Store } from "./store.js";
import type { Id } from "./types.js";
import { wordsOf, type Words } from "./words.js";

/** The flash entry a derived route writes after a change. */
export const NOTICE = "notice";

/**
 * What one model's derived pages share: its spec, its store as each role reads it, the roles it
 * mounts, the app's other models (`Relations`), its form and its words.
 */
export class ModelPages<A> {
  readonly form: Form<A>;
  readonly table: RowsTable<A>;
  readonly words: Words;
  readonly picker: Picker;

  constructor(
    readonly model: ModelSpec<A>,
    /** The whole table, or the current user's rows on a role the model's `owned` covers. */
    readonly own: Access<A>,
    readonly actions: Actions,
    readonly relations: Relations,
    /** This model as the other models' pages reach it. */
    readonly entry: RelatedModel,
    /** fw/files, for a model with file fields (model-files.ts); undefined otherwise. */
    readonly files?: ModelFiles,
  ) {
    this.table = new RowsTable(model, actions, own, entry.gate);
    this.form = this.table.form;
    this.words = wordsOf(model as ModelSpec<unknown>);
    this.picker = new Picker(relations);
  }

  /** The file fields of the model, in order. */
  get fileFields(): readonly FieldSpec[] {
    return fileFields(this.form.fields);
  }

  /** fw/files, which a model with file fields must be given (the generated table does). */
  filesOrFail(): ModelFiles {
    if (this.files === undefined) {
      throw new Error(`The model ${this.model.name} has file fields (${this.fileFields.map((f) => f.name).join(", ")}), so its routes need the files module: build them through the generated table, or pass resourceRoutes(…, { files: modelFiles(table) }), modelFiles imported from the files module.`);
    }
    return this.files;
  }

  /** What the Index's search box says ("Search posts"), for a model with searchable fields; undefined without. */
  get searchLabel(): string | undefined {
    return this.model.search === undefined ? undefined : `Search ${this.words.many.toLowerCase()}`;
  }

  /** The reference fields of the model, in order (those Index and Show label). */
  get references(): readonly Form<A>["shown"][number][] {
    return this.form.shown.filter((field) => field.input === "reference" || field.input === "references");
  }

  /**
   * The rows a role reads: the model's read rules (`owned`, `publicWhen`) and, with
   * `readableWith`, only those whose reference the viewer may read (in one query on fw/db).
   */
  reading(request: Request, role: Action): Store<A> | Promise<Store<A>> {
    if (this.model.readableWith === undefined) return this.own.reading(request, role);
    return viewerRows(this.relations, this.entry, request, role) as Store<A> | Promise<Store<A>>;
  }

  /** Whether rows are hidden from some readers (`publicWhen`, `readableWith`): a row they cannot read does not exist for them. */
  get scopesReads(): boolean {
    return this.own.scopesReads || this.model.readableWith !== undefined;
  }

  /**
   * The labels of what `rows`' references point at, as the viewer may read them (one query per
   * target model); at once, without a promise, when there is nothing to look up (a model without
   * references: its pages need not wait a turn for nothing).
   */
  labels(request: Request, rows: readonly unknown[]): ReferenceLabels | Promise<ReferenceLabels> {
    return this.references.length === 0 || rows.length === 0 ? ReferenceLabels.none : ReferenceLabels.load(this.relations, this.references, rows, request);
  }

  /**
   * The row key in the request's path: the route decoded it before the handler ran (its
   * parameter decoder is the model's `decodeKey`, typia's check of `Id<A>`; resource.tsx), so
   * the segment's text is now the key.
   */
  keyOf(request: Request): Id<A> {
    return request.params[this.model.key] as unknown as Id<A>;
  }

  /** The row `key` of `store` (as `reading` gave it: at once, or once known); 404 when there is none. */
  found(reading: Store<A> | Promise<Store<A>>, key: Id<A>): Promise<A> {
    return this.got(reading, key).then((row) => this.present(row, key));
  }

  /** The row `key` of `store` (as `reading` gave it: at once, or once known), undefined when there is none. */
  got(reading: Store<A> | Promise<Store<A>>, key: Id<A>): Promise<A | undefined> {
    return reading instanceof Promise ? reading.then((store) => store.get(key)) : reading.get(key);
  }

  /** `row`, read for `key`; the 404 when there is none. */
  present(row: A | undefined, key: Id<A>): A {
    if (row === undefined) throw new NotFound(`There is no ${this.words.lower} ${String(key)}.`);
    return row;
  }

  /**
   * The row a form page or a change works on: 404 when there is none (or, under a read scope,
   * none this viewer may read), 403 when it is someone else's on a covered role.
   */
  async writable(request: Request, role: Action, key: Id<A>): Promise<A> {
    const row = await this.found(this.scopesReads ? this.reading(request, "Show") : this.own.whole, key);
    await this.own.checkWrite(request, role, row);
    return row;
  }

  /** Asks the model's guard which controls this viewer is shown (control-gate.ts), before a page renders them. */
  askGate(request: Request): void | Promise<void> {
    return this.entry.gate?.ask(request);
  }

  /** Whether the page links to New: mounted, and the guard shows it to this viewer. */
  offersNew(request: Request): boolean {
    return this.table.offersNew(request);
  }

  /** A control for `role` is shown when the role is mounted and would not refuse this viewer. */
  offers(request: Request, role: "Edit" | "Destroy", row: A): boolean {
    return this.table.offers(request, role, row);
  }

  /**
   * Where a row's file is served (resource.tsx's file routes): its Show path, the field, the
   * file's key (which changes with the file, so the address can be cached for good), and an
   * image's variant (`thumb`, `large`).
   */
  fileHref(request: Request, key: unknown, field: FieldSpec, file: StoredFile, variant?: string): string {
    return fileHref(request, this.model, key, field.name, file.key, variant);
  }

  /** A row's Show path as this request reaches the table (under its `Route.under` prefix). */
  at(request: Request, key: unknown): string {
    return modelHref(request, this.model, "Show", key);
  }

  /** 303 with a flash to `target`, else the nearest mounted page: Index, then the table's home. */
  done(request: Request, notice: string, target: string | undefined): Response {
    return Redirect(target ?? this.home(request)).withSession(request.session.flash(NOTICE, notice));
  }

  /** Where a page sends the viewer when there is no row to go back to: the Index, else the table's home. */
  home(request: Request): string {
    return this.actions.has("Index") ? modelHref(request, this.model, "Index") : request.href("/");
  }

  backLink(request: Request): Html | null {
    return this.actions.has("Index") ? <p><a href={modelHref(request, this.model, "Index")} class="fw-back">Back to {this.words.many.toLowerCase()}</a></p> : null;
  }
}
