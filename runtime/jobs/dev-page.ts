import type { Database } from "../db/database.js";
import { element, type Child, type Html } from "../html/node.js";
import { BadRequest } from "../http/failure.js";
import type { Request } from "../http/request.js";
import { Ok, Redirect, status, type Response } from "../http/response.js";
import { asFwEndpoint } from "../routing/fw-endpoint.js";
import { Route, type HttpRoute } from "../routing/route.js";
import { countJobs, listJobs, retryJob, type JobRow, type JobState } from "./queue-sql.js";
import { ensureJobsTable } from "./table.js";

/** The dev page's paths (dev only, spec 4.6: `/fw` is fw's). */
export const JOBS_PAGE_PATH = "/fw/jobs";
export const RETRY_PATH = "/fw/jobs/retry";

/** The rows shown per state (the newest first). */
const SHOWN = 100;
const STATES: readonly JobState[] = ["queued", "running", "failed", "dead"];
const HEADINGS: Record<JobState, string> = { queued: "Queued", running: "Running", failed: "Failed (waiting to be tried again)", dead: "Dead (out of tries)" };

/**
 * `GET /fw/jobs` lists the jobs in each state (payload, tries, when due, the last error) with a
 * Retry button on failed and dead ones; `POST /fw/jobs/retry` makes one due now with a fresh
 * set of tries. Browser routes like the app's: the form carries the session's CSRF token and a
 * post without it is refused (403). Mounted by `DbApp` in `dev` only.
 */
export function jobsPageRoutes(database: Database): readonly HttpRoute[] {
  const page = Route.get(JOBS_PAGE_PATH, (request) => jobsPage(database, request), { source: "fw/jobs dev page" });
  const retry = Route.post(RETRY_PATH, (request) => retried(database, request), { source: "fw/jobs dev page: Retry" });
  return [asFwEndpoint(page), asFwEndpoint(retry)];
}

async function jobsPage(database: Database, request: Request, notice?: string): Promise<Response> {
  await ensureJobsTable(database);
  const [counts, rows] = await Promise.all([countJobs(database), listJobs(database, SHOWN)]);
  const content = jobsContent({ counts, rows, csrf: request.csrf, ...(notice === undefined ? {} : { notice }) });
  return notice === undefined ? Ok(content) : status(409, content);
}

async function retried(database: Database, request: Request): Promise<Response> {
  const text = request.form.get("id") ?? "";
  if (!/^[1-9][0-9]{0,15}$/.test(text)) throw new BadRequest(`The job to retry is named by its id, a whole number, not ${JSON.stringify(text.slice(0, 40))}.`);
  try {
    if (!(await retryJob(database, Number(text)))) return jobsPage(database, request, `Job #${text} is no longer failed or dead (it ran, or was retried already): nothing was changed.`);
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code !== "23505") throw error;
    return jobsPage(database, request, `Job #${text} was not retried: another job of the same name with the same unique key is waiting.`);
  }
  return Redirect(JOBS_PAGE_PATH);
}

interface PageProps {
  readonly counts: Record<JobState, number>;
  readonly rows: readonly JobRow[];
  readonly csrf: string;
  readonly notice?: string;
}

/** The page: counts, then one table per state. Everything is text in the tree, so the renderer escapes it. */
export function jobsContent(props: PageProps): Html {
  return element("main", { class: "fw-jobs" }, [
    element("title", {}, ["Jobs (fw dev)"]),
    element("h1", {}, ["Jobs"]),
    element("p", {}, [`${STATES.map((state) => `${props.counts[state]} ${state}`).join(", ")}. Jobs that succeeded are deleted. This page exists in dev only.`]),
    props.notice === undefined ? null : element("p", { role: "alert", class: "fw-jobs-notice", style: "color:#b00020" }, [props.notice]),
    ...STATES.map((state) => section(state, props)),
  ]);
}

function section(state: JobState, props: PageProps): Child {
  const rows = props.rows.filter((row) => row.state === state);
  const more = props.counts[state] > rows.length ? ` (the newest ${rows.length} of ${props.counts[state]})` : "";
  return element("section", { class: `fw-jobs-${state}`, "data-state": state }, [
    element("h2", {}, [`${HEADINGS[state]}: ${props.counts[state]}${more}`]),
    rows.length === 0
      ? element("p", {}, ["None."])
      : element("table", {}, [
          element("thead", {}, [element("tr", {}, ["Job", "Payload", "Tries", state === "running" ? "Started" : "Due", "Last error", ""].map((h) => element("th", {}, [h])))]),
          element("tbody", {}, rows.map((row) => jobRow(row, props.csrf))),
        ]),
  ]);
}

function jobRow(row: JobRow, csrf: string): Child {
  const retry =
    row.state === "failed" || row.state === "dead"
      ? element("form", { method: "post", action: RETRY_PATH }, [
          element("input", { type: "hidden", name: "_csrf", value: csrf }, []),
          element("input", { type: "hidden", name: "id", value: String(row.id) }, []),
          element("button", { type: "submit" }, ["Retry"]),
        ])
      : null;
  return element("tr", { "data-job": String(row.id) }, [
    element("td", {}, [`${row.name} #${row.id}`, row.uniqueKey === null ? null : element("br", {}, []), row.uniqueKey === null ? null : `unique: ${row.uniqueKey}`]),
    element("td", {}, [element("code", {}, [shortJson(row.payload)])]),
    element("td", {}, [`${row.attempts} of ${row.maxAttempts}`]),
    element("td", {}, [row.runAt.toISOString()]),
    element("td", {}, row.lastError === null ? [] : [element("pre", { class: "fw-jobs-error" }, [row.lastError])]),
    element("td", {}, [retry]),
  ]);
}

function shortJson(value: unknown): string {
  const text = JSON.stringify(value) ?? "";
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
}
