// Throughput: wrk against fw, raw node:http, Fastify and Hono on 127.0.0.1, servers pinned to
// core 0 and wrk to core 1, warm-up first, then interleaved rounds (A B C A B C …).
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort, startServer, WORK } from "./lib/util.mjs";
import { measureGroups } from "./lib/rounds.mjs";
import { csrfOf, signIn } from "./lib/sides.mjs";
import { cookiesScript, wrk } from "./lib/wrk.mjs";

const SERVER_CORE = 0;
/** Distinct session cookies sent in turn by the "sessions in turn" rows: twice what fw remembers. */
const MANY_COOKIES = 2048;
const LOAD_CORE = 1;

async function start(name, script, env) {
  const port = await freePort();
  const server = await startServer({ name, script: join("bench", "servers", script), env: { ...env, PORT: String(port) }, core: SERVER_CORE });
  return { ...server, port, url: `http://127.0.0.1:${port}` };
}

const sha = (text) => createHash("sha256").update(text).digest("hex").slice(0, 12);

function check(condition, message) {
  if (!condition) throw new Error(`preflight: ${message}`);
}

/** What each scenario must answer, checked once with fetch before any load. */
async function preflight(servers, cookie, csrf) {
  for (const name of ["raw", "fastify", "hono", "fwApi", "fwBrowser"]) {
    const res = await fetch(`${servers[name].url}/`);
    const text = await res.text();
    check(res.status === 200 && text === "Hello, World!", `${name} GET / answered ${res.status} ${JSON.stringify(text.slice(0, 80))}`);
  }
  const fresh = await fetch(`${servers.fwBrowser.url}/`);
  check(fresh.headers.get("set-cookie")?.startsWith("fw_session=") === true, "fw browser GET / without a cookie should set one");
  const again = await fetch(`${servers.fwBrowser.url}/`, { headers: { cookie } });
  check(again.headers.get("set-cookie") === null, "fw browser GET / with a valid cookie should not set one");
  const api = await fetch(`${servers.fwApi.url}/`);
  check(api.headers.get("set-cookie") === null, "fw API GET / should not set a cookie");

  const pages = {};
  for (const name of ["raw", "fastify", "hono", "fwApi"]) {
    const res = await fetch(`${servers[name].url}/posts/7`, { headers: { cookie } });
    const html = await res.text();
    check(res.status === 200, `${name} GET /posts/7 answered ${res.status}: ${html.slice(0, 200)}`);
    check(html.includes(`name="_csrf" value="${csrf}"`), `${name} page lacks the CSRF token`);
    check(html.includes("Signed in as ada"), `${name} page lacks the session's user`);
    check(res.headers.get("set-cookie") === null, `${name} page should not set a cookie`);
    pages[name] = html;
  }
  for (const name of ["fastify", "hono", "fwApi"]) {
    if (pages[name] !== pages.raw) {
      let at = 0;
      while (pages[name][at] === pages.raw[at]) at++;
      throw new Error(
        `preflight: ${name}'s page differs from raw's at byte ${at}:\n  raw: ${pages.raw.slice(at - 40, at + 60)}\n  ${name}: ${pages[name].slice(at - 40, at + 60)}`,
      );
    }
  }
  const index = await fetch(`${servers.fwApi.url}/tasks`, { headers: { cookie } });
  const indexBody = await index.text();
  check(index.status === 200, `fw derived Index answered ${index.status}`);
  const indexRows = (indexBody.match(/href="\/tasks\/\d+"/g) ?? []).length;
  check(indexRows === 50, `fw derived Index should link 50 rows (its page size), not ${indexRows}`);
  check(indexBody.includes("&quot;measure&quot; &lt;twice&gt; &amp; cut once"), "fw derived Index should show the rows' titles escaped");
  const notFound = await fetch(`${servers.fwApi.url}/nothing/here`, { headers: { cookie } });
  const notFoundBody = await notFound.text();
  check(notFound.status === 404, `fw 404 answered ${notFound.status}`);
  const notAllowed = await fetch(`${servers.fwApi.url}/posts/7`, { method: "DELETE", headers: { cookie } });
  const notAllowedBody = await notAllowed.text();
  check(notAllowed.status === 405 && notAllowed.headers.get("allow") === "GET, HEAD", `fw 405 answered ${notAllowed.status} allow=${notAllowed.headers.get("allow")}`);
  const posted = await fetch(`${servers.fwApi.url}/posts/7/comments`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
    body: formBody(csrf),
  });
  check(posted.status === 303 && posted.headers.get("location") === "/posts/7", `fw form POST answered ${posted.status}`);
  check(posted.headers.get("set-cookie")?.startsWith("fw_session=") === true, "fw form POST should set the flash cookie");
  const forged = await fetch(`${servers.fwApi.url}/posts/7/comments`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
    body: formBody("not-the-token"),
  });
  check(forged.status === 403, `fw form POST with a wrong token answered ${forged.status}, not 403`);
  return {
    pageBytes: Buffer.byteLength(pages.raw),
    pageSha: sha(pages.raw),
    notFoundBytes: Buffer.byteLength(notFoundBody),
    indexBytes: Buffer.byteLength(indexBody),
    notAllowedBytes: Buffer.byteLength(notAllowedBody),
  };
}

function formBody(csrf) {
  return `_csrf=${encodeURIComponent(csrf)}&text=${encodeURIComponent("Great post, thanks & see you!")}`;
}

function postScript(cookie, csrf) {
  const file = join(WORK, "post-comment.lua");
  writeFileSync(
    file,
    `wrk.method = "POST"\n` +
      `wrk.body = ${JSON.stringify(formBody(csrf))}\n` +
      `wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"\n` +
      `wrk.headers["Cookie"] = ${JSON.stringify(cookie)}\n`,
  );
  return file;
}

function deleteScript(cookie) {
  const file = join(WORK, "delete.lua");
  writeFileSync(file, `wrk.method = "DELETE"\nwrk.headers["Cookie"] = ${JSON.stringify(cookie)}\n`);
  return file;
}

/**
 * Runs the three groups. Options: seconds per round, rounds, warm-up seconds.
 * Returns { groups: [{ id, title, baseline, rows: [{ id, label, runs: [...], rps: summary, … }] }], facts }.
 */
export async function throughput({ seconds, rounds, warmup, connections }) {
  const secret = process.env.FW_SECRET;
  const env = { FW_SECRET: secret, FW_ALLOWED_HOSTS: "127.0.0.1,localhost", FW_ORIGIN: "http://localhost", FW_MAILBOX: ".fw/bench-mail" };
  const servers = {};
  mkdirSync(WORK, { recursive: true });
  try {
    servers.raw = await start("raw", "raw.mjs", env);
    servers.fastify = await start("fastify", "fastify.mjs", env);
    servers.hono = await start("hono", "hono.mjs", env);
    servers.fwApi = await start("fw", "fw.mjs", { ...env, FW_TEXT_ROUTE: "api" });
    servers.fwBrowser = await start("fw (browser route)", "fw.mjs", { ...env, FW_TEXT_ROUTE: "browser" });

    // Every server serves load before anything else happens to it. V8's memory reducer, when it
    // runs on a process that has served a few requests and then idled ~8 s before its code got
    // hot, leaves that process 20-30 % slower for good (raw node:http included; finding 14). Which
    // server fell into that depended on where it sat in the run (the browser route's server
    // idled longest after the checks below); warmed first, none does.
    for (const server of Object.values(servers)) {
      await wrk({ url: `${server.url}/`, seconds: warmup, connections, core: LOAD_CORE });
    }

    // The session every page request sends: signed by fw itself, "ada" signed in, a CSRF token.
    const cookie = await signIn(servers.fwApi.url);
    const csrf = csrfOf(cookie);
    const facts = { ...(await preflight(servers, cookie, csrf)), cookieBytes: cookie.length };
    const withCookie = [`Cookie: ${cookie}`];
    // Many sessions in turn: more distinct cookies than fw remembers (1,024), so fw verifies the
    // HMAC and parses the payload on every request, as the hand-written servers always do.
    const many = [];
    for (let i = 0; i < MANY_COOKIES; i++) {
      many.push(await signIn(servers.fwApi.url));
    }
    for (const name of ["raw", "fwApi"]) {
      const page = await fetch(`${servers[name].url}/posts/7`, { headers: { cookie: many[MANY_COOKIES - 1] } });
      check(page.status === 200 && (await page.text()).includes("Signed in as ada"), `${name} should read the last of the ${MANY_COOKIES} sessions`);
    }
    const manyScript = cookiesScript(many, "/posts/7", join(WORK, "many-sessions.lua"));

    const groups = [
      {
        id: "text",
        title: "Plain text `GET /` (13 bytes)",
        baseline: "raw",
        rows: [
          { id: "raw", label: "raw node:http", url: `${servers.raw.url}/`, server: servers.raw },
          // The browser rows' request carries the session cookie (183 B): raw gets the same bytes and
          // ignores them, so the comparison holds what the kernel and node's parser do per request equal.
          { id: "rawCookie", label: "raw node:http, the same Cookie header sent (ignored)", short: "raw sent the same Cookie header", url: `${servers.raw.url}/`, server: servers.raw, headers: withCookie },
          { id: "fastify", label: "Fastify", url: `${servers.fastify.url}/`, server: servers.fastify },
          { id: "hono", label: "Hono (node-server)", url: `${servers.hono.url}/`, server: servers.hono },
          { id: "fw", label: "fw, `Route.api` (no session, like raw)", url: `${servers.fwApi.url}/`, server: servers.fwApi },
          { id: "fwBrowserCookie", label: "fw, `Route.get` browser route, cookie sent", url: `${servers.fwBrowser.url}/`, server: servers.fwBrowser, headers: withCookie, baseline: "rawCookie" },
          { id: "fwBrowserFresh", label: "fw, `Route.get` browser route, no cookie (mints CSRF + Set-Cookie each time)", url: `${servers.fwBrowser.url}/`, server: servers.fwBrowser },
        ],
      },
      {
        id: "page",
        title: `Session page \`GET /posts/7\` (HMAC verify + JSON parse + ${facts.pageBytes} B escaped HTML in a layout, CSRF token in the form)`,
        baseline: "raw",
        rows: [
          { id: "raw", label: "raw node:http (by hand)", url: `${servers.raw.url}/posts/7`, server: servers.raw, headers: withCookie },
          { id: "fastify", label: "Fastify (same work by hand)", url: `${servers.fastify.url}/posts/7`, server: servers.fastify, headers: withCookie },
          { id: "hono", label: "Hono (same work by hand)", url: `${servers.hono.url}/posts/7`, server: servers.hono, headers: withCookie },
          { id: "fw", label: "fw (JSX page + layout)", url: `${servers.fwApi.url}/posts/7`, server: servers.fwApi, headers: withCookie },
          { id: "rawMany", label: `raw node:http (by hand), ${MANY_COOKIES.toLocaleString("en")} sessions in turn`, short: "raw under the same load", url: `${servers.raw.url}/posts/7`, server: servers.raw, script: manyScript },
          { id: "fwMany", label: `fw, ${MANY_COOKIES.toLocaleString("en")} sessions in turn (more than the 1,024 verified cookies it remembers: an HMAC per request, as raw)`, url: `${servers.fwApi.url}/posts/7`, server: servers.fwApi, script: manyScript, baseline: "rawMany" },
        ],
      },
      {
        id: "fwAlone",
        title: "fw alone (regression tracking)",
        baseline: undefined,
        rows: [
          { id: "index", label: `derived Index \`GET /tasks\` (50 rows of 60, a table in the layout, ${facts.indexBytes} B)`, url: `${servers.fwApi.url}/tasks`, server: servers.fwApi, headers: withCookie },
          { id: "notFound", label: `404 \`GET /nothing/here\` (problem page in the layout, ${facts.notFoundBytes} B)`, url: `${servers.fwApi.url}/nothing/here`, server: servers.fwApi, headers: withCookie, expectNon2xx: true },
          { id: "notAllowed", label: `405 \`DELETE /posts/7\` (Allow: GET, HEAD, ${facts.notAllowedBytes} B)`, url: `${servers.fwApi.url}/posts/7`, server: servers.fwApi, script: deleteScript(cookie), expectNon2xx: true },
          { id: "post", label: "form POST `/posts/7/comments` (urlencoded, CSRF checked, 303 + flash cookie)", url: `${servers.fwApi.url}/posts/7/comments`, server: servers.fwApi, script: postScript(cookie, csrf) },
        ],
      },
    ];

    await measureGroups(groups, { seconds, rounds, warmup, connections, core: LOAD_CORE, what: "throughput" });
    return { groups, facts };
  } finally {
    await Promise.all(Object.values(servers).map((s) => s.stop()));
  }
}
