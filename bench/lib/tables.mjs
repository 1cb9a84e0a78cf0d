// Route tables and request paths for the routing part, from a seeded PRNG so a run can be
// replayed. Two kinds of table: a realistic REST mix with overlapping patterns (timed), and a
// heavy-overlap random table over a tiny alphabet like spec/support/random.ts (checked only).

export const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];

/** mulberry32, as in spec/support/random.ts. */
export class Random {
  constructor(seed) {
    this.state = seed >>> 0;
  }
  next() {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n) {
    return Math.floor(this.next() * n);
  }
  pick(items) {
    return items[this.int(items.length)];
  }
}

const NOUNS = [
  "users", "posts", "comments", "orders", "items", "products", "invoices", "teams", "projects", "tasks",
  "tags", "categories", "files", "images", "events", "tickets", "messages", "accounts", "payments", "reviews",
  "articles", "authors", "books", "carts", "coupons", "customers", "deals", "devices", "groups", "jobs",
  "labels", "leads", "notes", "pages", "plans", "reports", "roles", "sessions", "shipments", "vendors",
];
const NAMESPACES = ["", "/admin", "/api/v1", "/api/v2", "/internal", "/partner", "/shop", "/cms", "/account", "/support"];

/** The routes of one resource at `base`, most static first (as fw's transformer orders them). */
function resourceRoutes(base, child, random) {
  const rows = [
    ["GET", `${base}`],
    ["GET", `${base}/new`],
    ["GET", `${base}/search`],
    ["POST", `${base}`],
    ["GET", `${base}/:id/edit`],
    ["GET", `${base}/:id/${child}`],
    ["GET", `${base}/:id/${child}/:childId`],
    ["GET", `${base}/:id`],
    ["PUT", `${base}/:id`],
    ["PATCH", `${base}/:id`],
    ["DELETE", `${base}/:id`],
  ];
  if (random.next() < 0.2) rows.push(["GET", `${base}/:id/attachments/*path`]);
  return rows;
}

/**
 * A REST-like table of exactly `size` routes: resources under namespaces, each with the usual
 * eleven routes (`/new` and `/search` overlap `/:id`), sub-resources, some catch-alls, and a few
 * generic routes that overlap whole parts of the table (`/:section/:page` in the middle, so
 * later two-segment GET routes can only win where it does not match; `/:lang/*rest` late).
 */
export function restTable(size, random) {
  const rows = [];
  let n = 0;
  outer: for (let round = 0; ; round++) {
    for (const ns of NAMESPACES) {
      for (const noun of NOUNS) {
        const base = `${ns}/${noun}${round === 0 ? "" : round + 1}`;
        for (const [method, path] of resourceRoutes(base, random.pick(NOUNS), random)) {
          rows.push({ method, path });
          if (++n >= size) break outer;
        }
      }
    }
  }
  const generic = [
    ["GET", "/:section/:page"],
    ["GET", "/pages/*path"],
    ["POST", "/:section/:page/preview"],
    ["GET", "/:lang/*rest"],
    ["GET", "/health"],
  ];
  // Generic routes replace rows at fixed fractions of the table, so the size stays exact.
  const at = [0.5, 0.3, 0.6, 0.9, 0.1];
  generic.forEach(([method, path], i) => {
    if (rows.length > 8) rows[Math.floor(rows.length * at[i])] = { method, path };
  });
  return rows.map((row, index) => ({ ...row, index }));
}

const IDS = ["1", "42", "9001", "a1b2c3", "hello-world", "new", "edit", "search", "%E2%9C%93", "x"];

/** A concrete path for `pattern`: params get ids, slugs or literals of other routes (overlap). */
function instantiate(pattern, random) {
  if (pattern === "/") return "/";
  const parts = [];
  for (const seg of pattern.slice(1).split("/")) {
    if (seg.startsWith(":")) parts.push(random.pick(IDS));
    else if (seg.startsWith("*")) for (let k = random.int(4); k > 0; k--) parts.push(random.pick(IDS));
    else parts.push(seg);
  }
  return "/" + parts.join("/");
}

/**
 * `count` requests against `rows`: about 80 % built from a route of the table (its method,
 * sometimes HEAD for a GET), the rest misses: an unknown segment (404) or a wrong method (405).
 */
export function restPaths(rows, count, random) {
  const paths = [];
  for (let i = 0; i < count; i++) {
    const row = random.pick(rows);
    const roll = random.next();
    if (roll < 0.8) {
      const method = row.method === "GET" && random.next() < 0.05 ? "HEAD" : row.method;
      paths.push({ method, path: instantiate(row.path, random) });
    } else if (roll < 0.9) {
      const path = instantiate(row.path, random);
      const parts = path.split("/");
      parts[1 + random.int(Math.max(1, parts.length - 1))] = random.pick(["nope", "zzz", "missing"]);
      paths.push({ method: row.method, path: parts.join("/") || "/" });
    } else {
      paths.push({ method: random.pick(["OPTIONS", "DELETE", "PUT"]), path: instantiate(row.path, random) });
    }
  }
  return paths;
}

/** Like spec/support/random.ts: literals a/b/c, params, catch-alls last, random methods. */
export function randomOverlapTable(size, random) {
  const rows = [];
  for (let index = 0; index < size; index++) {
    const length = random.int(5);
    const parts = [];
    for (let i = 0; i < length; i++) {
      const roll = random.next();
      if (roll < 0.55) parts.push(random.pick(["a", "b", "c"]));
      else if (roll < 0.85 || i < length - 1) parts.push(`:p${i}`);
      else parts.push(`*r${i}`);
    }
    rows.push({ method: random.pick(METHODS.filter((m) => m !== "HEAD")), path: "/" + parts.join("/"), index });
  }
  return rows;
}

export function randomOverlapPaths(count, random) {
  const paths = [];
  for (let i = 0; i < count; i++) {
    const length = random.int(6);
    const segments = Array.from({ length }, () => random.pick(["a", "b", "c", "d", "", "x%2Fy"]));
    paths.push({ method: random.pick(METHODS), path: "/" + segments.join("/") });
  }
  return paths;
}
