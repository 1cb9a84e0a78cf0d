// The logs' app (spec/ops/logs.test.ts), booted from the built runtime in its own process:
// pages that answer, throw, read a form and a JSON body, and a job a request enqueues. On fw/db's
// embedded database in the working directory; PLAIN=1 runs it as a bare HttpApp (no jobs), which
// `--workers` takes. spec/ops/metrics.test.ts scrapes it too.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const dist = join(dirname(fileURLToPath(import.meta.url)), "../../../dist/runtime");
const { HttpApp, Ok, Route, RouteTable, log, raw } = await import(join(dist, "index.js"));
const { Mailer } = await import(join(dist, "mail/index.js"));
// Mail lands in FW_MAILBOX (the tests' folder): `send` delivers at once.
const mailer = new Mailer({ from: "ops <ops@example.com>" });

const plain = process.env.PLAIN === "1";
const { DbApp } = plain ? {} : await import(join(dist, "db/index.js"));
const { defineJobs } = plain ? {} : await import(join(dist, "jobs/index.js"));

/** A job written by hand as the build writes one: `{ n: number }`; 13 fails. */
const noteSpec = {
  name: "Note",
  source: "src/jobs/Note.ts",
  options: { maxAttempts: 1 },
  validate: (input) => (typeof input?.n === "number" ? { success: true, data: input } : { success: false, errors: [{ path: "$input.n", expected: "number", value: input?.n }] }),
  run: (payload, job) => {
    log.info("note job ran", { n: payload.n, given: job.requestId ?? "none" });
    if (payload.n === 13) throw new Error("unlucky thirteen");
  },
};
const jobs = plain ? undefined : defineJobs({ Note: noteSpec }, { pollMs: 50 });

const routes = RouteTable.of(
  Route.get("/", (request) => Ok(`hello ${request.id}`)),
  Route.get("/pid", () => Ok(String(process.pid))),
  Route.ws("/echo", { message: (connection, text) => connection.send(text) }),
  Route.get("/boom", () => {
    throw new Error("kaboom");
  }),
  // Reads a form and logs through the app's log, secrets included: the log must not show them.
  Route.api({
    method: "POST",
    path: "/api/signin",
    handler: (request) => {
      const form = new URLSearchParams(request.text);
      log.info("sign-in tried", { email: "someone@example.com", password: form.get("password"), nested: { token: form.get("token") } });
      return Ok("tried");
    },
  }),
  // Traces (spec/ops/traces.test.ts): a mail delivered, an outgoing fetch to DOWNSTREAM.
  Route.api({
    method: "POST",
    path: "/api/mail",
    handler: async () => {
      await mailer.send({ to: "reader@example.com", subject: "Traced", body: raw("<p>Hello</p>") });
      return Ok("sent");
    },
  }),
  Route.api({
    method: "GET",
    path: "/api/fetch",
    handler: async () => {
      const answer = await fetch(`${process.env.DOWNSTREAM}/downstream?secret=query-value`);
      return Ok(`downstream said ${answer.status}`);
    },
  }),
  Route.api({
    method: "POST",
    path: "/api/notes",
    handler: async (request) => {
      const n = Number(new URLSearchParams(request.text).get("n"));
      const enqueued = await jobs.enqueue("Note", { n });
      return Ok(String(enqueued.id));
    },
  }),
);

const app = plain ? new HttpApp({ routes, parts: [mailer] }) : new DbApp({ routes, jobs, parts: [mailer] });
process.exitCode = await app.main(process.argv.slice(2));
