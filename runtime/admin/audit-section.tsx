import { BadRequest, NotFound } from "../http/failure.js";
import { readWholeNumber } from "../http/number-text.js";
import type { Request } from "../http/request.js";
import { Ok, type Response } from "../http/response.js";
import type { Html } from "../html/node.js";
import { countAhead, pagesCounted, type PagesCounted } from "../resource/page-count.js";
import { pageNumber } from "../resource/page-number.js";
import { Origin, Route, type HttpRoute } from "../routing/route.js";
import { countText } from "./admin-index.js";
import { USER_MODEL } from "./admin-spec.js";
import type { AuditEntry, AuditLog, AuditQuery } from "./audit-log.js";
import type { AdminSection } from "./model-section.js";

/** Entries per page of the audit log. */
export const AUDIT_PAGE_SIZE = 50;

/** The most characters of a row key (`?key=`) read. */
const MAX_KEY = 40;

/** A section's model as the log names it, and where its rows are in the back office. */
export interface Logged {
  readonly name: string;
  readonly path: string;
}

/**
 * The audit log in the back office: every admin write, newest first, a page at a time, with who
 * (a link to their account), what (the model or account, and a link to it while it exists), when
 * (UTC) and the row before and after; filtered by model (and row), or by the admin who did it.
 */
export class AuditSection implements AdminSection {
  readonly title = "Audit log";
  readonly path = "/audit";

  constructor(
    private readonly log: AuditLog,
    /** The back office's models (and `User`), as `?model=` takes them. */
    private readonly models: readonly Logged[],
    private readonly source: string,
  ) {}

  routes(): readonly HttpRoute[] {
    return [Route.http({ method: "GET", path: "/audit", handler: (request) => this.page(request), origin: Origin.Resource, source: this.source })];
  }

  private async page(request: Request): Promise<Response> {
    const page = pageNumber(request.query.get("page"));
    const filter = this.filter(request);
    const offset = (page - 1) * AUDIT_PAGE_SIZE;
    const countUpTo = countAhead(offset, AUDIT_PAGE_SIZE);
    const { rows, total } = await this.log.list({ ...filter, offset, limit: AUDIT_PAGE_SIZE, countUpTo });
    const counted = pagesCounted(total, countUpTo, AUDIT_PAGE_SIZE);
    if (page > counted.last) throw new NotFound(`There is no page ${page} of the audit log here: there ${counted.last === 1 ? "is 1 page" : `are ${counted.last} pages`}.`);
    const narrowed = filter.model !== undefined || filter.actor !== undefined;
    return Ok(
      <>
        <title>Audit log · back office</title>
        <h1>Audit log</h1>
        <p class="fw-admin-count">{countText(total, counted, "change", "changes")}{narrowed ? " match" : ""}, newest first</p>
        {this.filterForm(request, filter)}
        {rows.length === 0 ? <p class="fw-empty">No change{narrowed ? " matches" : " yet"}.</p> : this.table(request, rows)}
        {counted.last > 1 ? this.pager(request, page, counted, filter) : null}
      </>,
    );
  }

  private table(request: Request, entries: readonly AuditEntry[]): Html {
    return (
      <table class="fw-index fw-audit">
        <thead>
          <tr>
            <th scope="col">When (UTC)</th>
            <th scope="col">Who</th>
            <th scope="col">Did</th>
            <th scope="col">What</th>
            <th scope="col">Before</th>
            <th scope="col">After</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <tr class={`fw-audit-${entry.action}`}>
              <td>{entry.at.toISOString().slice(0, 19).replace("T", " ")}</td>
              <td><a href={request.href(`/users/${entry.actor.id}`)}>{entry.actor.email}</a></td>
              <td>{entry.action}</td>
              <td>{this.what(request, entry)}</td>
              <td>{json(entry.before)}</td>
              <td>{json(entry.after)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    );
  }

  /** "Post 7", a link to its page while it may still exist (not after its delete). */
  private what(request: Request, entry: AuditEntry): Html | string {
    const text = `${entry.model} ${entry.key}`;
    const model = this.models.find((m) => m.name === entry.model);
    if (model === undefined || entry.action === "delete") return text;
    return <a href={request.href(`${model.path}/${encodeURIComponent(entry.key)}`)}>{text}</a>;
  }

  /** `?model=` (one of the back office's models, or User), `?key=` (with a model), `?actor=` (a user's number); anything else a 400. */
  private filter(request: Request): Pick<AuditQuery, "model" | "key" | "actor"> {
    const model = request.query.get("model") || undefined;
    if (model !== undefined && !this.models.some((m) => m.name === model)) {
      throw new BadRequest(`The audit log is filtered by one of ${this.models.map((m) => m.name).join(", ")}, not ${JSON.stringify(model.slice(0, 40))}.`);
    }
    const key = request.query.get("key") || undefined;
    if (key !== undefined && (model === undefined || key.length > MAX_KEY)) throw new BadRequest(`The audit log is filtered by a row's key (?key=, at most ${MAX_KEY} characters) together with its model (?model=Post&key=7).`);
    const actorText = request.query.get("actor") || undefined;
    const actor = actorText === undefined ? undefined : readWholeNumber(actorText, 1, Number.MAX_SAFE_INTEGER);
    if (actorText !== undefined && actor === undefined) throw new BadRequest(`The audit log is filtered by the number of the admin who made the change (?actor=7), not ${JSON.stringify(actorText.slice(0, 40))}.`);
    return { ...(model === undefined ? {} : { model }), ...(key === undefined ? {} : { key }), ...(actor === undefined ? {} : { actor }) };
  }

  private filterForm(request: Request, filter: Pick<AuditQuery, "model" | "key" | "actor">): Html {
    return (
      <form method="get" action={request.href("/audit")} class="fw-admin-filter" role="search">
        <label>
          Model{" "}
          <select name="model">
            <option value="">Any</option>
            {this.models.map((model) => <option value={model.name} selected={model.name === filter.model}>{model.name}</option>)}
          </select>
        </label>
        {filter.key === undefined ? null : <input type="hidden" name="key" value={filter.key} />}
        <label>
          By user number <input type="number" name="actor" min="1" step="1" value={filter.actor === undefined ? "" : String(filter.actor)} />
        </label>
        <button type="submit">Filter</button> <a href={request.href("/audit")}>Clear</a>
      </form>
    );
  }

  private pager(request: Request, page: number, { last, more }: PagesCounted, filter: Pick<AuditQuery, "model" | "key" | "actor">): Html {
    const at = (n: number): string => {
      const parts = new URLSearchParams();
      if (filter.model !== undefined) parts.set("model", filter.model);
      if (filter.key !== undefined) parts.set("key", filter.key);
      if (filter.actor !== undefined) parts.set("actor", String(filter.actor));
      if (n > 1) parts.set("page", String(n));
      const text = parts.toString();
      return request.href(text === "" ? "/audit" : `/audit?${text}`);
    };
    return (
      <nav class="fw-pager" aria-label="Pages">
        {page > 1 ? <a href={at(page - 1)} rel="prev">Previous</a> : null}
        <span>Page {page} of {last}{more ? " or more" : ""}</span>
        {page < last ? <a href={at(page + 1)} rel="next">Next</a> : null}
      </nav>
    );
  }
}

/** A record's row as JSON, or a dash when there is none (before a create, after a delete). */
function json(value: AuditEntry["before"]): Html | string {
  return value === undefined ? "—" : <pre class="fw-audit-json">{JSON.stringify(value, null, 1)}</pre>;
}

/** The users' entry of `?model=`: accounts are logged as `User`. */
export const USERS_LOGGED: Logged = { name: USER_MODEL, path: "/users" };
