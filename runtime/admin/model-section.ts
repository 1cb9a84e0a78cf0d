import type { Request } from "../http/request.js";
import { Actions } from "../resource/actions.js";
import type { ModelSpec } from "../resource/model.js";
import type { ModelFiles } from "../resource/model-files.js";
import { ModelPages } from "../resource/model-pages.js";
import { modelPattern } from "../resource/model-paths.js";
import { Ownership } from "../resource/ownership.js";
import type { Relations } from "../resource/relations.js";
import { resourceRoutes } from "../resource/resource.js";
import type { AllRows } from "../resource/store.js";
import type { HttpRoute } from "../routing/route.js";
import { wordsOf } from "../resource/words.js";
import { AdminIndex } from "./admin-index.js";
import { adminSpec } from "./admin-spec.js";
import { AuditedRows } from "./audited-rows.js";
import type { AuditLog } from "./audit-log.js";

/**
 * One model as the generated table hands it to the back office: its spec (read from its type),
 * every one of its rows (`AllRows<M>`: the named escape hatch past its policy, `owned` and read
 * scope), its files (a model with file fields) and its source file.
 */
export interface AdminModel<M = unknown> {
  readonly spec: ModelSpec<M>;
  readonly rows: AllRows<M>;
  readonly files?: ModelFiles;
  readonly source: string;
}

/** One section of the back office: a heading in its navigation, where it is, and its routes (paths under the back office's). */
export interface AdminSection {
  readonly title: string;
  /** Its first page, under the back office (`/posts`, `/users`, `/audit`). */
  readonly path: string;
  /** How many rows it has, for the back office's front page; undefined when it does not say. */
  count?(request: Request): Promise<number | undefined>;
  routes(): readonly HttpRoute[];
}

/**
 * A model's pages in the back office: the derived pages (Show, New, Edit, Create, Update, Destroy
 * and its confirmation, its files) over every row, each write kept in the audit log, and a list
 * that filters and searches (admin-index.tsx) in the Index's place. The model's other pages and
 * the rows a reference points at are the back office's too (its own `Relations`), so a comment's
 * post links to the post's back-office page.
 */
export function modelSection(model: AdminModel, log: AuditLog, relations: Relations, source: string): AdminSection {
  const spec = adminSpec(model.spec as ModelSpec<unknown>);
  const audited = new AuditedRows(model.rows, spec, log);
  return {
    title: wordsOf(spec).many,
    path: spec.path,
    count: async () => (await model.rows.list({ offset: 0, limit: 1, countUpTo: 1_000_001 })).total,
    routes: () => routesOf(spec, audited, model.files, relations, source),
  };
}

function routesOf(spec: ModelSpec<unknown>, audited: AuditedRows<unknown>, files: ModelFiles | undefined, relations: Relations, source: string): HttpRoute[] {
  const derived = resourceRoutes(spec, audited, { actions: Actions.all, relations, source, ...(files === undefined ? {} : { files }) });
  const entry = relations.model(spec.name);
  if (entry === undefined) throw new Error(`fw/admin: the back office's ${spec.name} was not registered in its Relations: a second model named ${spec.name}?`);
  const index = new AdminIndex(new ModelPages(spec, Ownership.of(audited, undefined, spec), Actions.all, relations, entry, files));
  const at = modelPattern(spec, "Index");
  // No `model`: the app's own routes of this model name its source; these are the back office's.
  return derived.map(({ model: _model, ...route }) => (route.method === "GET" && route.role === "Index" && route.path.text === at ? { ...route, handler: (request: Request) => index.page(request) } : route));
}
