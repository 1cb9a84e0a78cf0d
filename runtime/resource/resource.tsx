import type { ParamDecoders } from "../routing/from-path.js";
import { Origin, Route, type HttpRoute } from "../routing/route.js";
import { ACTION_ORDER, Actions, type Action } from "./actions.js";
import { ControlGate, type GuardDisplay } from "./control-gate.js";
import { FormPages } from "./form-pages.js";
import type { ModelSpec } from "./model.js";
import { ModelPages } from "./model-pages.js";
import type { OwnedDeclaration } from "./owned-declaration.js";
import { fileRoutePattern, modelPattern, type ModelRoute } from "./model-paths.js";
import { Ownership } from "./ownership.js";
import { pickRoute } from "./pick-route.js";
import { ReadPages } from "./read-pages.js";
import { Relations, type RelatedModel } from "./relations.js";
import type { Store } from "./store.js";
import { fileFields, readerField, type ModelFiles } from "./model-files.js";
import type { FileFields } from "../http/uploads.js";

export { PAGE_SIZE } from "./read-pages.js";
export { NOTICE } from "./model-pages.js";

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
  /**
   * Other models reference this one (`post: Id<Post>`): mount its pick endpoint
   * `GET /fw/pick/<path>?q=`, which suggests rows to their forms' search inputs (role Index, so
   * the model's guard covers it as its Index). The generated table sets it.
   */
  readonly referenced?: boolean;
  /**
   * A model with file fields (`Upload<…>`, `Image<…>`): fw/files' `modelFiles()`, which stores,
   * serves and deletes them. The generated table passes it (issue 40).
   */
  readonly files?: ModelFiles;
  /**
   * The model's guard, for display only (its routes are wrapped by `guardRoutes`): the pages
   * show a covered role's controls (New, Edit, Delete) only to a viewer it admits
   * (`auth.role(…)`). The generated table passes it.
   */
  readonly guard?: GuardDisplay | undefined;
}

/**
 * The derived routes of one model (spec 4.4), in emit order Index, New, Show, Edit, Create,
 * Update, Destroy, only the mounted roles, each of origin Resource. Pages never show a control
 * that points at an unmounted route.
 */
export function resourceRoutes<A>(model: ModelSpec<A>, store: Store<A>, options: ResourceOptions = {}): HttpRoute[] {
  const actions = options.actions ?? Actions.all;
  // Without the app's Relations (a table written by hand), the model's own: it reaches itself alone.
  const relations = options.relations ?? new Relations();
  const gate = options.guard?.admits === undefined ? ControlGate.open : new ControlGate(options.guard);
  const entry: RelatedModel = { model: model as ModelSpec<unknown>, store: store as Store<unknown>, actions, owned: options.owned, publicWhen: options.publicWhen, gate };
  const context = new ModelPages(model, Ownership.of(store, options.owned, model, options.publicWhen), actions, relations, entry, options.files);
  relations.register(entry);
  const reads = new ReadPages(context);
  const forms = new FormPages(context);
  const source = options.source ?? model.fqn;
  const params: ParamDecoders = { [model.key]: model.decodeKey };
  const at = (route: ModelRoute): string => modelPattern(model as ModelSpec<unknown>, route);
  // A model's file fields: what its Create and Update take in a multipart body (issue 40).
  const uploads = fileUploads(model);
  const shapes: Record<Action, () => HttpRoute> = {
    Index: () => Route.http({ method: "GET", path: at("Index"), handler: (r) => reads.index(r), origin: Origin.Resource, source }),
    New: () => Route.http({ method: "GET", path: at("New"), handler: (r) => forms.fresh(r), origin: Origin.Resource, source, submits: { method: "POST", path: at("Create") } }),
    Show: () => Route.http({ method: "GET", path: at("Show"), handler: (r) => reads.show(r), params, origin: Origin.Resource, source }),
    Edit: () => Route.http({ method: "GET", path: at("Edit"), handler: (r) => forms.edit(r), params, origin: Origin.Resource, source, submits: { method: "PUT", path: at("Update") } }),
    Create: () => Route.http({ method: "POST", path: at("Create"), handler: (r) => forms.create(r), origin: Origin.Resource, source, ...uploads }),
    Update: () => Route.http({ method: "PUT", path: at("Update"), handler: (r) => forms.update(r), params, origin: Origin.Resource, source, ...uploads }),
    Destroy: () => Route.http({ method: "DELETE", path: at("Destroy"), handler: (r) => reads.destroy(r), params, origin: Origin.Resource, source }),
  };
  const pages = ACTION_ORDER.filter((role) => actions.has(role)).map((role): HttpRoute => ({ ...shapes[role](), role, model: model.name }));
  // A row's files, served by its Show's read rule: after its pages, guarded as Show.
  const routes = actions.has("Show") ? [...pages, ...fileRoutes(model, reads, params, source)] : pages;
  // The pick endpoint of a referenced model, after its pages.
  const picking = options.referenced === true ? [pickRoute(model as ModelSpec<unknown>, relations, source)] : [];
  // Destroy's confirmation step, a page that works without JavaScript: part of the Destroy role
  // (mounted, guarded and left out with it), placed before Destroy as Edit is before Update.
  if (!actions.has("Destroy")) return [...routes, ...picking];
  const confirm: HttpRoute = {
    ...Route.http({ method: "GET", path: at("Confirm"), handler: (r) => reads.confirm(r), params, origin: Origin.Resource, source, submits: { method: "DELETE", path: at("Destroy") } }),
    role: "Destroy",
    model: model.name,
  };
  const posts = routes.findIndex((route) => route.method === "POST");
  const all = posts === -1 ? [...routes.slice(0, -1), confirm, ...routes.slice(-1)] : [...routes.slice(0, posts), confirm, ...routes.slice(posts)];
  return [...all, ...picking];
}

/** The Resource derivation (spec 2.14): `Resource.routes(model, store)` builds a model's routes. */
export const Resource = { routes: resourceRoutes } as const;


/** The `files` declaration of a model's Create and Update: each file field's limits and types (none without file fields). */
function fileUploads(model: ModelSpec<unknown>): { files?: FileFields } {
  const fields = fileFields(model.fields);
  if (fields.length === 0) return {};
  const files = Object.fromEntries(
    fields.map((field) => {
      const spec = field.file;
      if (spec === undefined) throw new Error(`The model ${model.name}'s file field ${field.name} has no \`file\` spec: build the model through the generated table.`);
      return [field.name, readerField(spec)];
    }),
  );
  return { files };
}

/**
 * A row's file (`GET /posts/:id/cover/:fileKey`) and, for an image, its variants
 * (`…/:fileKey/thumb`, `…/large`): role Show, so the model's guard and read rules cover them as
 * they cover the row (a draft's cover is a 404 for whoever may not read the draft).
 */
function fileRoutes(model: ModelSpec<unknown>, reads: ReadPages<unknown>, params: ParamDecoders, source: string): HttpRoute[] {
  return fileFields(model.fields).flatMap((field) => {
    const original: HttpRoute = {
      ...Route.http({ method: "GET", path: fileRoutePattern(model, field.name, false), handler: (r) => reads.file(r, field, undefined), params, origin: Origin.Resource, source }),
      role: "Show",
      model: model.name,
    };
    if (field.file?.image !== true) return [original];
    const variant: HttpRoute = {
      ...Route.http({ method: "GET", path: fileRoutePattern(model, field.name, true), handler: (r) => reads.file(r, field, r.params["variant"]), params, origin: Origin.Resource, source }),
      role: "Show",
      model: model.name,
    };
    return [original, variant];
  });
}
