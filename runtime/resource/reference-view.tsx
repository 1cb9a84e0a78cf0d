import type { Request } from "../http/request.js";
import type { Html } from "../html/node.js";
import { escapeHtml, raw } from "../html/render.js";
import { labelOf, unnamed } from "./labels.js";
import type { PathValue } from "../routing/fill-path.js";
import type { FieldSpec, ModelSpec, ReferenceSpec } from "./model.js";
import { modelRowPath } from "./model-paths.js";
import { CELL_LENGTH, oneLineHtml } from "./one-line.js";
import { viewerRows } from "./readable.js";
import type { RelatedModel, Relations } from "./relations.js";
import type { Store } from "./store.js";

/**
 * The rows a page's references point at, named: a reference shows as a link to the target's
 * Show with its label, never as a bare key. Loaded once per page, one query per target model
 * (`where: { id: [keys] }` through the rows the viewer may read), whatever the number of rows.
 */
export class ReferenceLabels {
  private constructor(
    /** Per target model name, the label of each key the viewer may read. */
    private readonly labels: ReadonlyMap<string, ReadonlyMap<unknown, string>>,
    private readonly targets: ReadonlyMap<string, RelatedModel>,
    /** A path of the table as the request reaches it (under its `Route.under` prefix). */
    private readonly href: (path: string) => string = (path) => path,
  ) {}

  /**
   * A table's reference cells, written once per target row and page: an Index of 50 posts names
   * some 25 authors, and every cell of one author is the same link (`cellHtml` at `CELL_LENGTH`).
   */
  private readonly cells = new Map<string, Map<unknown, string>>();

  static readonly none = new ReferenceLabels(new Map(), new Map());

  /**
   * The labels of what `fields` (reference fields of `rows`' model) point at, as `request`'s viewer
   * may read them. Not an async function: the keys asked for (a Map of Sets) are garbage once
   * the statements are sent, and only what the labels need is held while they wait
   * (bench/FINDINGS.md 42). Each target's list counts down to the answer in its own `then`: no
   * `Promise.all`, its reactions and a `then` after it (bench/FINDINGS.md 47). The first failure
   * rejects, as `Promise.all` did, and whatever fails on the way is a rejection, never a throw.
   */
  static load(relations: Relations, fields: readonly FieldSpec[], rows: readonly unknown[], request: Request): Promise<ReferenceLabels> {
    const targets = new Map<string, RelatedModel>();
    const labels = new Map<string, ReadonlyMap<unknown, string>>();
    return new Promise((resolve, reject) => {
      // One for the loop below, so the answer waits for every statement it sends.
      let left = 1;
      const settled = (): void => {
        if (--left === 0) resolve(new ReferenceLabels(labels, targets, (path) => request.href(path)));
      };
      for (const [name, keys] of wantedKeys(relations, fields, rows, targets)) {
        if (keys.size === 0) continue;
        left++;
        loadLabels(relations, targets.get(name) as RelatedModel, keys, labels, request, settled, reject);
      }
      settled();
    });
  }

  /** The label of the row `key` of the model `name` when the viewer may read it; else undefined. */
  label(name: string, key: unknown): string | undefined {
    return this.labels.get(name)?.get(key);
  }

  /**
   * A reference as a page shows it: a link to the target's Show with its label (cut to
   * `limit`); the label alone when the target mounts no Show; "Post 7" when the viewer may not
   * read that row (or there is none), so a hidden row's label never shows. Empty when absent.
   */
  cell(row: unknown, field: FieldSpec, limit = CELL_LENGTH): Html {
    return raw(this.cellHtml(row, field, limit));
  }

  /** `cell` as HTML text, escaped: what a table's rows write (rows-table.tsx). */
  cellHtml(row: unknown, field: FieldSpec, limit = CELL_LENGTH): string {
    const key = (row as Record<string, unknown>)[field.name];
    const reference = field.reference;
    if (key === undefined || key === null || reference === undefined) return "";
    if (!Array.isArray(key)) return this.keyHtml(reference, key, limit);
    // A list (many-to-many): each key's cell, comma-separated, added up rather than mapped and
    // joined (no array and no row object a key; bench/FINDINGS.md 43).
    let html = "";
    for (let at = 0; at < key.length; at++) {
      const one: unknown = key[at];
      const cell = one === undefined || one === null ? "" : this.keyHtml(reference, one, limit);
      html = at === 0 ? cell : `${html}, ${cell}`;
    }
    return html;
  }

  /** The cell of one key of `reference`'s model, written once a request for the usual length. */
  private keyHtml(reference: ReferenceSpec, key: unknown, limit: number): string {
    // `none` is shared by every request: it keeps nothing.
    if (limit !== CELL_LENGTH || this === ReferenceLabels.none) return this.written(reference, key, limit);
    let written = this.cells.get(reference.model);
    if (written === undefined) this.cells.set(reference.model, (written = new Map()));
    let html = written.get(key);
    if (html === undefined) written.set(key, (html = this.written(reference, key, limit)));
    return html;
  }

  /** The cell of the reference `key` to `reference`'s model, written. */
  private written(reference: ReferenceSpec, key: unknown, limit: number): string {
    const target = this.targets.get(reference.model);
    const label = this.label(reference.model, key);
    if (target === undefined || label === undefined) return escapeHtml(unnamed(target?.model ?? targetSpec(reference.model, reference.path), key));
    const text = oneLineHtml(label, limit);
    if (!target.actions.has("Show")) return text;
    return `<a href="${escapeHtml(this.href(modelRowPath(target.model, "Show", key as PathValue)))}">${text}</a>`;
  }
}

/** Enough of a model to name its row when it is not registered: its name and path. */
function targetSpec(name: string, path: string): Pick<ModelSpec<unknown>, "name" | "path"> {
  return { name, path };
}

/** The keys `fields` of `rows` hold, per target model name; each target's model put in `targets`. */
function wantedKeys(relations: Relations, fields: readonly FieldSpec[], rows: readonly unknown[], targets: Map<string, RelatedModel>): Map<string, Set<unknown>> {
  const wanted = new Map<string, Set<unknown>>();
  for (const field of fields) {
    const target = field.reference === undefined ? undefined : relations.model(field.reference.model);
    if (target === undefined) continue;
    targets.set(target.model.name, target);
    const keys = wanted.get(target.model.name) ?? new Set<unknown>();
    wanted.set(target.model.name, keys);
    for (const row of rows) {
      const value = (row as Record<string, unknown>)[field.name];
      // A list (many-to-many) names every key it holds: still one statement for the page's labels.
      if (Array.isArray(value)) for (const one of value) keys.add(one);
      else if (value !== undefined && value !== null) keys.add(value);
    }
  }
  return wanted;
}

/**
 * The statement of one target model's `keys` (`where: { id: [keys] }` through the rows the viewer
 * may read), filling `labels` with its rows' labels, then `settled`; `reject` on any failure.
 */
function loadLabels(
  relations: Relations,
  target: RelatedModel,
  keys: ReadonlySet<unknown>,
  labels: Map<string, ReadonlyMap<unknown, string>>,
  request: Request,
  settled: () => void,
  reject: (error: unknown) => void,
): void {
  const where = { [target.model.key]: [...keys] };
  const limit = keys.size;
  const named = ({ rows: found }: { readonly rows: readonly unknown[] }): void => {
    try {
      labels.set(target.model.name, new Map(found.map((row) => [(row as Record<string, unknown>)[target.model.key], labelOf(target.model, row)])));
    } catch (error) {
      reject(error);
      return;
    }
    settled();
  };
  const list = (readable: Store<unknown>): void => {
    try {
      readable.list({ offset: 0, limit, where }).then(named, reject);
    } catch (error) {
      reject(error);
    }
  };
  const readable = viewerRows(relations, target, request, "Show");
  if (readable instanceof Promise) readable.then(list, reject);
  else list(readable);
}
