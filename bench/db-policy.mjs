// The policy rows of the db part (issue 41): a derived Index of 50 rows under a policy that reads
// the viewer's roles and team membership, against the same page of the same rows under `owned`
// alone, on one fw server (bench/servers/policy-app), signed in through fw/auth's form. The
// statements each page sends are counted at the database and must be as many on both pages:
// a policy is a WHERE, not a query per row.

/** The pages: the baseline (`owned`) first. */
export const POLICY_PAGES = [
  { id: "owned", path: "/memos", label: "Index under `owned` alone (memos: the viewer's rows)" },
  { id: "policy", path: "/drafts", label: "Index under a policy with roles and the current team (drafts: the team's rows)" },
];
/** Rows per table per user (bench/servers/policy-app/src/seed.ts): more than a page. */
const ROWS = 60;
const EMAIL = "ada@bench.example";
const PASSWORD = "plum orbit velvet 9271";

/**
 * A session of ada's, signed in through the form (`GET /login` for the CSRF token, `POST /login`),
 * then settled by one page (which drops the sign-in's flash): a cookie every later page keeps.
 */
export async function policySignIn(baseUrl) {
  const form = await fetch(`${baseUrl}/login`);
  const first = form.headers.get("set-cookie")?.split(";")[0];
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1];
  if (first === undefined || csrf === undefined) throw new Error(`${baseUrl}/login gave no session or CSRF token`);
  const body = new URLSearchParams({ _csrf: csrf, email: EMAIL, password: PASSWORD });
  const res = await fetch(`${baseUrl}/login`, { method: "POST", redirect: "manual", headers: { cookie: first, origin: baseUrl, "content-type": "application/x-www-form-urlencoded" }, body });
  const signedIn = res.headers.get("set-cookie")?.split(";")[0];
  if (res.status !== 303 || signedIn === undefined) throw new Error(`POST ${baseUrl}/login answered ${res.status} without a session: ${(await res.text()).slice(0, 300)}`);
  const settled = await fetch(`${baseUrl}${POLICY_PAGES[0].path}`, { headers: { cookie: signedIn } });
  await settled.arrayBuffer();
  return settled.headers.get("set-cookie")?.split(";")[0] ?? signedIn;
}

/** Each page answers 200 with 50 of the viewer's 60 rows and a pager, and leaves the cookie alone. */
export async function policyPreflight(baseUrl, cookie) {
  for (const page of POLICY_PAGES) {
    const res = await fetch(`${baseUrl}${page.path}`, { headers: { cookie } });
    const html = await res.text();
    if (res.status !== 200) throw new Error(`GET ${page.path} answered ${res.status}: ${html.slice(0, 300)}`);
    const rows = (html.match(new RegExp(`<a href="${page.path}/\\d+">Show</a>`, "g")) ?? []).length;
    if (rows !== 50) throw new Error(`GET ${page.path} should list 50 rows (a page of the viewer's ${ROWS}), not ${rows}`);
    // The pager (issue 43's keyset paging) counts the viewer's rows: the other user's or team's are not among them.
    if (!new RegExp(`<nav class="fw-pager"[^>]*><span>${ROWS} \\w+</span><a href="${page.path}\\?after=[\\w-]+" rel="next">Next</a></nav>`).test(html)) {
      throw new Error(`GET ${page.path} lacks its pager over the viewer's ${ROWS} rows: ${html.slice(html.indexOf("</table>"), html.indexOf("</table>") + 300)}`);
    }
    if (res.headers.get("set-cookie") !== null) throw new Error(`GET ${page.path} set a cookie: the bench's session is not settled`);
  }
}

/**
 * The statements each page sends (`counter.of`, bench/db.mjs), which must be as many on both:
 * the team's membership is read with the user, in the guard's one statement.
 */
export async function policyStatements(counter, baseUrl, cookie, database) {
  const counted = {};
  for (const page of POLICY_PAGES) counted[page.id] = await counter.of(`${baseUrl}${page.path}`, cookie, database);
  const [owned, policy] = POLICY_PAGES.map((page) => counted[page.id].perPage);
  if (owned !== policy) {
    const text = (c) => c.statements.map((x) => `${x.perPage}× ${x.sql}`).join("\n    ");
    throw new Error(`the policy's page sends ${policy} statements where owned's sends ${owned}:\n  owned:\n    ${text(counted.owned)}\n  policy:\n    ${text(counted.policy)}`);
  }
  return counted;
}

/** The group `measureGroups` measures: both pages on one server, the ratio to owned's, paired round by round. */
export function policyGroup(server, cookie, engine, counted) {
  return {
    id: "policy",
    title: `Policies (issue 41): a derived Index of 50 rows under a policy reading roles and the current team, against the same page under \`owned\` alone (fw on ${engine}, one server)`,
    path: POLICY_PAGES[1].path,
    baseline: "owned",
    baselineLabel: "ratio to `owned`",
    rows: POLICY_PAGES.map((page) => ({
      id: page.id,
      label: `${page.label} \`GET ${page.path}\``,
      queries: counted?.[page.id]?.perPage,
      url: `${server.url}${page.path}`,
      server,
      headers: [`Cookie: ${cookie}`],
    })),
  };
}
