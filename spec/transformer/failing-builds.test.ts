import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { errorLines, FIXTURES, limited, notFws, tspc, type Built } from "../support/tspc.js";

/** Each fixture is a build that must fail, with the diagnostic lines it must print. */
const cases: Record<string, readonly RegExp[]> = {
  "missing-export": [
    /src\/app\/posts\/_id\/Show\.ts\(1,1\): error TS91001: fw: src\/app\/posts\/_id\/Show\.ts mounts GET \/posts\/:id but exports no `show`\. Write: export function show\(request: Request\): Response/,
    /src\/app\/posts\/New\.ts\(1,1\): error TS91001: .*exports no `new`\. Write: function fresh\(request: Request\): Response \{ … \} export \{ fresh as new \};/,
  ],
  "not-a-handler": [
    /src\/app\/About\.ts\(\d+,\d+\): error TS91002: .*`about` returns `string`; a handler returns a `Response`/,
    /src\/app\/Index\.ts\(\d+,\d+\): error TS91002: .*`index` is not a function/,
    /src\/app\/Contact\.ts\(\d+,\d+\): error TS91002: .*`contact` takes 3 parameters/,
  ],
  "unknown-request-type": [
    /src\/app\/Index\.ts\(\d+,\d+\): error TS91003: .*the first parameter of `index` is `IncomingMessage`; a handler takes `Request` \(a browser page\) or `ApiRequest` \(an API route\)/,
    // The global Fetch API `Request` (no import): the message says it is not fw's and how to import fw's.
    /src\/app\/About\.ts\(\d+,\d+\): error TS91003: fw: .*the first parameter of `about` is a `Request` that is not fw's: it is declared in (typescript\/lib\/lib\.dom|undici-types\/fetch)\.d\.ts \(without an import, `Request` names the Fetch API's global\)\. Import fw's: `import type \{ Request \} from "fw"` \(a browser page\), or `ApiRequest` \(an API route\)\./,
  ],
  "missing-capability": [/error TS91004: fw: `create` in src\/app\/contact\/Create\.ts needs the capability `mailer: Mailer`, which src\/capabilities\.ts does not supply\. Add to src\/capabilities\.ts: export const mailer: Mailer = …;/],
  "no-capabilities-module": [/error TS91004: fw: `index` in src\/app\/Index\.ts needs the capability `clock: \(\) => Date`, .*Create src\/capabilities\.ts with export const clock/],
  "mistyped-capability": [/error TS91005: fw: `create` in src\/app\/contact\/Create\.ts needs the capability `mailer: Mailer`, but src\/capabilities\.ts exports `mailer` as `"smtp:\/\/localhost"`/],
  "duplicate-route": [/error TS91006: fw: src\/app\/posts\/_key\/Show\.ts and src\/app\/posts\/_id\/Show\.ts both mount GET \/posts\/:key/],
  "catch-all-not-last": [/error TS91007: fw: src\/app\/docs\/__rest\/Edit\.ts mounts GET \/docs\/\*rest\/edit: the catch-all folder `__rest`/],
  "param-not-in-path": [/error TS91010: fw: src\/app\/posts\/Index\.ts mounts GET \/posts: `index` reads the path parameter `id`, but its path has no such parameter/],
  "duplicate-param-name": [/error TS91012: fw: .*\/:id\/items\/:id, which uses the parameter name `id` twice/],
  "model-errors": [
    /src\/models\/Gadget\.ts\(\d+,\d+\): error TS91013: fw: .*the field `tags` of the model Gadget has the type `string\[\]`, which fw cannot put in a form/,
    /error TS91013: fw: .*the field `size` of the model Gadget/,
    /src\/models\/Keyless\.ts\(\d+,\d+\): error TS91014: fw: .*the model Keyless has no key: give it exactly one field of type Id<Keyless>/,
    /src\/models\/Hidden\.ts\(\d+,\d+\): error TS91015: fw: .*the model Hidden and its companion must be exported/,
    /src\/models\/Counter\.ts\(\d+,\d+\): error TS91013: fw: .*the field `hits` of the model Counter is `readonly`: set by handlers, never by a form, so a new row has none\. Make it optional \(`readonly hits\?: …`\)/,
  ],
  "owner-errors": [
    /src\/models\/Orphan\.ts\(\d+,\d+\): error TS91016: fw: src\/models\/Orphan\.ts: the model Orphan declares `owned` but has no field of type Id<User> to name its owner\. Give it exactly one, e\.g\. `author: Id<User>`/,
    /src\/models\/Crowded\.ts\(\d+,\d+\): error TS91016: fw: .*the model Crowded declares `owned` but has 2 fields of type Id<…> \(author: Id<User>, team: Id<Team>\), so fw cannot tell which one names the owner/,
    /src\/models\/Doubled\.ts\(\d+,\d+\): error TS91030: fw: src\/models\/Doubled\.ts: the model Doubled declares both `guarded` and `owned`, and `owned` is its guard already \(spec 2\.13\): with both, `owned`'s actions \(the roles that need a signed-in user\) would never be read\. Drop `guarded` and name those roles in `owned`: `auth\.owned\(covers, actions\)`\./,
  ],
  "typia-missing": [
    /(^|\n)tsconfig\.json\(6,5\): error TS91017: fw: tsconfig\.json: the generated routes call typia \(a typed path parameter\), but compilerOptions\.plugins has no typia transform\. Add \{ "transform": "typia\/lib\/transform" \}/,
    // Issue 32: a job file's payload validator needs typia too (src/jobs/Ping.ts).
    /(^|\n)tsconfig\.json\(6,5\): error TS91017: fw: tsconfig\.json: the generated jobs module \(src\/\.fw\/jobs\.ts\) calls typia \(each job's payload type\), but compilerOptions\.plugins has no typia transform/,
  ],
  "json-misuse": [
    /src\/app\/api\/Index\.ts\(5,15\): error TS91024: fw: src\/app\/api\/Index\.ts mounts GET \/api: `request\.json\(\)` reads a JSON body, but the request's type declares none, so nothing would check it: declare it in the handler's signature, `request: JsonRequest<NewTask>`/,
    /src\/app\/api\/Create\.ts\(\d+,\d+\): error TS91024: .*`request\.json<Note>\(\)`: fw checks a JSON body against the type the handler declares, not a type argument .*`request: JsonRequest<Note>`/,
    /src\/app\/api\/Update\.ts\(\d+,\d+\): error TS91024: .*`update` takes a JSON body of type `unknown`, which says nothing the body could be checked against/,
    // Issue 31: what JSON cannot carry is refused at the handler, not by typia in the generated modules.
    /src\/app\/api\/counts\/Index\.ts\(\d+,\d+\): error TS91060: fw: src\/app\/api\/counts\/Index\.ts mounts GET \/api\/counts: `index` answers JSON of a type JSON cannot carry: \$\.total: bigint, \$\.seen: Map<string, number>\. JSON carries strings, numbers, booleans, null, arrays and plain objects .*`Number\(count\)`.*or declare the handler `: Response`/,
    /src\/app\/api\/tallies\/Create\.ts\(\d+,\d+\): error TS91060: .*`create` takes a JSON body of a type JSON cannot carry: \$\.total: bigint, so no request could send it/,
  ],
  "scoped-unowned": [
    /src\/app\/Index\.ts\(\d+,\d+\): error TS91005: fw: src\/app\/Index\.ts mounts GET \/: `index` asks for `notes: ScopedStore<Note>`, but Note declares no `owned`, so its rows belong to nobody and its store is not a ScopedStore: ask for `notes: Store<Note>`\./,
  ],
  // Issue 31: links, form actions, redirects and fw/testing requests no route answers (TS91050), live topics nothing publishes (TS91051).
  "broken-paths": [
    /src\/app\/Index\.tsx\(11,15\): error TS91050: fw: src\/app\/Index\.tsx: <a href> names \/taks, which no route of the app answers to GET\. Nearest: GET \/tasks, GET \/tasks\/:id, .*Fix the path, or build it with path\(\) from src\/\.fw\/paths\.ts/,
    /src\/app\/Index\.tsx\(12,16\): error TS91050: fw: .*<a href> names \/tasks\/\$\{id\}\/edti, which no route of the app answers to GET\. Nearest: GET \/tasks\/:id\/edit, GET \/tasks\/:id,/,
    /src\/app\/Index\.tsx\(13,16\): error TS91050: fw: .*<a href> names \/tasks\/\$\{id\}\/delete, which no route of the app answers: it is where GET \/tasks\/:id\/delete would be, but Task's actions leave Destroy out\./,
    /src\/app\/Index\.tsx\(14,34\): error TS91050: fw: .*<form action> names \/about, which the app answers only to GET \(GET \/about\), but a form with method="post" sends POST.*or fix the path: to answer its POST there, add src\/app\/about\/Create\.ts/,
    /src\/app\/tasks\/_id\/Done\.ts\(6,35\): error TS91050: fw: src\/app\/tasks\/_id\/Done\.ts: Redirect\(…\) names \/tasks\/\$\{id\}\/edti, which no route of the app answers to GET\. Nearest: GET \/tasks\/:id\/edit, GET \/tasks\/:id,/,
    /src\/tests\/app\.test\.ts\(7,20\): error TS91050: fw: src\/tests\/app\.test\.ts: client\.get\(…\) names \/taks, which no route of the app answers to GET\. Nearest: GET \/tasks/,
    /src\/app\/Live\.tsx\(16,28\): error TS91051: fw: src\/app\/Live\.tsx: the live page listens to the topic "task", which nothing publishes, so the page would never refresh\. The topics that exist: "tasks", "ticks"\./,
    /src\/app\/Live\.tsx\(16,36\): error TS91051: fw: .*the topic "lobby", which nothing publishes.*"lobby" names a Room, and rooms are not topics/,
  ],
  // Issue 41, a user's own data: the owner's onDelete needs a table, and "set null" an optional owner. Card is quiet.
  "owner-delete-errors": [
    /src\/models\/Memo\.ts\(\d+,\d+\): error TS91041: fw: src\/models\/Memo\.ts: the onDelete of Memo says "cascade" for its owner `writer`, but its rows are in memory/,
    /src\/models\/Note\.ts\(\d+,\d+\): error TS91041: fw: src\/models\/Note\.ts: the onDelete of Note says "set null" for its owner `writer`, which is required/,
    /src\/models\/Chore\.ts\(\d+,\d+\): error TS91040: fw: src\/models\/Chore\.ts: the field `helper: Id<User>` of Chore names a user beside its owner: no form may set it \(anyone could name anyone\), so your code does\. Make it `readonly helper\?: Id<User>`/,
  ],
  // Issue 41: a policy stands alone (no guarded, owned or publicWhen beside it); its owner field is one of the model's Id<…> fields. Good is quiet.
  "policy-errors": [
    /src\/models\/Twice\.ts\(\d+,\d+\): error TS91032: fw: src\/models\/Twice\.ts: the model Twice declares a `policy` and `guarded`: the policy says who may reach each action and which rows each viewer reads, so it stands alone\. Drop guarded/,
    /src\/models\/Stray\.ts\(\d+,\d+\): error TS91016: fw: src\/models\/Stray\.ts: the policy of Stray names the owner field "text", which is not one of its Id<…> fields \(`writer: Id<User>`\)/,
    // Teams: a team field that is not an Id<Team>, an optional one, one on a model kept in memory.
    /src\/models\/TeamNotId\.ts\(\d+,\d+\): error TS91033: fw: .*names the team field "desk", which is not one of its Id<Team> fields \(its Id<…> fields: `desk: Id<User>`\): give it `desk: Id<Team>` \(import type \{ Team \} from "fw\/auth"\)/,
    /src\/models\/TeamOptional\.ts\(\d+,\d+\): error TS91033: fw: .*the team field `team` of TeamOptional is optional, but every row belongs to a team: write `team: Id<Team>`/,
    /src\/models\/TeamInMemory\.ts\(\d+,\d+\): error TS91033: fw: .*but its rows are in memory: teams live in the database beside the users\. Give TeamInMemory a table/,
  ],
  // Issue 41 item 5: the back office's declaration: what it lists must be models with a store, its
  // role one of the app's (the default "admin" included), its path a literal; one per app, at top level.
  "admin-errors": [
    /src\/admin\.ts\(9,39\): error TS91102: fw: src\/admin\.ts: the back office opens to the role "admin" \(the default\), which is not one of the app's roles \(editor, staff, from User's roles\): add "admin" to the Role union, or name one of them: backOffice\(auth, \{ role: "editor", … \}\)\./,
    /src\/admin\.ts\(9,56\): error TS91101: fw: src\/admin\.ts: `notAModel` in the back office's `models` is not a model: name a model's companion, the const `derives<M>\(…\)` made/,
    /src\/admin\.ts\(9,67\): error TS91101: fw: src\/admin\.ts: the model Draft derives no Resource, so fw keeps no store of its rows for the back office to show: derive it with Resource, derives<Draft>\(Form, Resource, \{ actions: Actions\.only\(\), … \}\) for no pages of its own \(src\/models\/Draft\.ts\)\./,
    /src\/admin\.ts\(9,74\): error TS91101: fw: src\/admin\.ts: the model Post is listed twice in the back office's `models`: list it once\./,
    /src\/admin\.ts\(9,81\): error TS91103: fw: src\/admin\.ts: the back office's `at` must be a string literal path of plain segments the build can read, like at: "\/admin"/,
    /src\/second\.ts\(5,22\): error TS91100: fw: src\/second\.ts: an app has one back office, and src\/admin\.ts declares it already/,
  ],
  "admin-no-roles": [
    /src\/admin\.ts\(6,10\): error TS91100: fw: src\/admin\.ts: the back office must be declared at the top level of a module, exported as a const, so the build can mount it: export const admin = backOffice\(auth, \{ models: \[Post, Comment\] \}\);/,
    /src\/admin\.ts\(13,34\): error TS91102: fw: src\/admin\.ts: the app's user type User declares no roles, so nobody can hold the back office's role and its forms have none to offer: declare them on the user type: `roles\?: readonly Role\[\]`/,
  ],
  // Issue 40: file fields' options, each at its field; a file field on a model kept in memory. Photo, written right, is quiet.
  "file-errors": [
    /src\/models\/Report\.ts\(6,3\): error TS91080: fw: src\/models\/Report\.ts: the `accept` of the field `doc` of the model Report names "pdf", which is not a media type: write "type\/subtype" or "type\/\*" in lower case/,
    /src\/models\/Scan\.ts\(6,3\): error TS91080: fw: .*the `maxBytes` of the field `page` of the model Scan is `0`, which is no positive whole number: write the limit as a literal, Upload<\{ accept: "application\/pdf"; maxBytes: 5_000_000 \}>/,
    /src\/models\/Logo\.ts\(6,3\): error TS91080: fw: .*the field `mark` of the model Logo is an Image that accepts "image\/svg\+xml".*SVG can carry script, so it is never shown inline: take it as a download with Upload<\{ accept: "image\/svg\+xml" \}>/,
    /src\/models\/Anything\.ts\(6,3\): error TS91080: fw: .*names "\*\/\*", which is not a media type.*name the types the field takes/,
    /src\/models\/Memo\.ts\(\d+,\d+\): error TS91081: fw: src\/models\/Memo\.ts: the model Memo has the file field `note` but no table: a stored file outlives the process, so its row must too\. Give the model a table, derives<Memo>\(…, \{ table: "memos" \}\)/,
  ],
  // Issue 32: job files under src/jobs (helpers.ts, lower-case, is a plain module and no job).
  "job-errors": [
    /src\/jobs\/NoRun\.ts\(1,1\): error TS91070: fw: src\/jobs\/NoRun\.ts is the job NoRun, but it exports no `run`\. A job file exports `export async function run\(payload: Payload, job: JobContext\): Promise<void> \{ … \}`/,
    /src\/jobs\/TooMany\.ts\(\d+,\d+\): error TS91071: fw: src\/jobs\/TooMany\.ts is the job TooMany, but its `run` takes 4 parameters; it takes the payload and, optionally, the JobContext and the stores it uses/,
    /src\/jobs\/Viewer\.ts\(\d+,\d+\): error TS91113: fw: src\/jobs\/Viewer\.ts is the job Viewer, but it asks for `posts: Store<Post>`, a viewer's rows, and a job runs for nobody signed in: ask for every row by name, `posts: AllRows<Post>`/,
    /src\/jobs\/NotStores\.ts\(\d+,\d+\): error TS91113: fw: src\/jobs\/NotStores\.ts is the job NotStores, but it asks for `mailer: string` in its third parameter, which holds model stores only/,
    /src\/jobs\/Dated\.ts\(\d+,\d+\): error TS91072: fw: src\/jobs\/Dated\.ts is the job Dated, but its payload type `\{ id: number; sendAt: Date; \}` cannot be stored as JSON: payload\.sendAt is a Date\. Use strings, numbers, booleans, null, arrays and plain objects \(an ISO date string for a date/,
    /src\/jobs\/Bare\.ts\(\d+,\d+\): error TS91072: fw: src\/jobs\/Bare\.ts is the job Bare, but its payload is `string`; a payload is an object of JSON values/,
  ],
  // Issue 39 item 11: two models of one name derive one path; the table used to crash at boot (Relations).
  "duplicate-model": [
    /src\/archive\/Note\.ts\(\d+,\d+\): error TS91031: fw: src\/archive\/Note\.ts: the models in src\/archive\/Note\.ts and src\/models\/Note\.ts are both named Note, so both derive \/notes: a model's path comes from its name, and its pages find the other models by name\. Rename one of them \(ArchivedNote would derive \/archived-notes\)\./,
    /src\/models\/Note\.ts\(\d+,\d+\): error TS91031: fw: src\/models\/Note\.ts: the models in src\/archive\/Note\.ts and src\/models\/Note\.ts are both named Note, so both derive \/notes/,
  ],
  // Issue 39 item 12: a wrong entry of the plugin option extraRoutes is reported on the tsconfig, at the entry.
  "extra-routes-errors": [
    /(^|\n)tsconfig\.json\(10,40\): error TS91052: fw: tsconfig\.json: the plugin option "extraRoutes" lists "health", which is not a route: write "GET \/health" \(a method and a path pattern\) or "\/hooks\/\*rest" \(any method\), one string per route, in an array\./,
    /(^|\n)tsconfig\.json\(10,50\): error TS91052: fw: tsconfig\.json: the plugin option "extraRoutes" lists 42, which is not a route/,
    /(^|\n)tsconfig\.json\(10,54\): error TS91052: fw: tsconfig\.json: the plugin option "extraRoutes" lists "POST \/hooks\/\*rest\/more", which is not a route/,
  ],
  // Issue 39 item 13: a POST form's literal `_method` is the method it sends, checked as a form's method is.
  "form-method-override": [
    /src\/app\/Index\.tsx\(10,35\): error TS91050: fw: src\/app\/Index\.tsx: <form action> names \/tasks\/\$\{id\}, which the app answers only to GET, PUT, DELETE \([^)]*PUT \/tasks\/:id, DELETE \/tasks\/:id\), but the form sends PATCH \(method="post" with _method PATCH\)\. Send it the way the route takes it, or fix the path\./,
    /src\/app\/Index\.tsx\(14,34\): error TS91050: fw: src\/app\/Index\.tsx: <form action> names \/tasks, which the app answers only to GET, POST \(GET \/tasks, POST \/tasks\), but the form sends DELETE \(method="post" with _method DELETE\)/,
    /src\/app\/Index\.tsx\(19,51\): error TS91050: fw: src\/app\/Index\.tsx: <form action> names \/tasks\/\$\{id\} with _method "GET", which fw refuses \(400\): _method asks for PUT, PATCH or DELETE only\. For a GET, write method="get" \(or a link\)\./,
  ],
  // Issue 39 item 14: the nearest of a mistyped file of public/ is that file; a POST form at a GET-only page is told which file to add.
  "nearest-paths": [
    /src\/app\/Index\.tsx\(7,35\): error TS91050: fw: src\/app\/Index\.tsx: <link href> names \/app\.cs, which no route of the app answers to GET\. Nearest: GET \/app\.css \(public\/app\.css\), /,
    /src\/app\/Index\.tsx\(8,15\): error TS91050: fw: src\/app\/Index\.tsx: <a href> names \/img\/logo\.sv, which no route of the app answers to GET\. Nearest: GET \/img\/logo\.svg \(public\/img\/logo\.svg\), /,
    /src\/app\/Index\.tsx\(9,15\): error TS91050: fw: src\/app\/Index\.tsx: <a href> names \/newsleter, which no route of the app answers to GET\. Nearest: GET \/newsletter, /,
    /src\/app\/newsletter\/Index\.tsx\(6,32\): error TS91050: fw: src\/app\/newsletter\/Index\.tsx: <form action> names \/newsletter, which the app answers only to GET \(GET \/newsletter\), but a form with method="post" sends POST \(PUT, PATCH or DELETE through `_method`\)\. Send it the way the route takes it, or fix the path: to answer its POST there, add src\/app\/newsletter\/Create\.ts \(export async function create\(request: Request\): Promise<Response>\)\./,
  ],
  "missing-guard": [
    /src\/app\/Index\.ts\(1,1\): error TS91009: fw: src\/app\/Index\.ts \(GET \/\) declares no `guarded`/,
    /src\/models\.ts\(\d+,\d+\): error TS91009: fw: the model Note declares no `guarded`/,
  ],
};

const names = Object.keys(cases);
const results = new Map<string, Built>();
let noEmit: Built;
let incremental: Built;

beforeAll(async () => {
  const built = await limited(2, [
    ...names.map((name) => () => tspc(join(FIXTURES, name))),
    () => tspc(join(FIXTURES, "missing-capability"), ["--noEmit"]),
    () => tspc(join(FIXTURES, "duplicate-route"), ["--incremental"]),
  ]);
  names.forEach((name, i) => results.set(name, built[i] as Built));
  noEmit = built[names.length] as Built;
  incremental = built[names.length + 1] as Built;
}, 600_000);

describe("Builds that must fail name the file, the export or capability, and the fix", () => {
  it.each(names)("%s", (name) => {
    const result = results.get(name) as Built;
    expect(result.code, result.output).not.toBe(0);
    for (const line of cases[name] as readonly RegExp[]) expect(result.output).toMatch(line);
  });

  it.each(names)("%s: every error is fw's own, in the app's files, none in the generated module", (name) => {
    const output = (results.get(name) as Built).output;
    expect(errorLines(output).length, output).toBeGreaterThan(0);
    expect(notFws(output), output).toEqual([]);
  });

  it("file-errors: one error per mistaken file field and none for the model written right", () => {
    const output = (results.get("file-errors") as Built).output;
    expect(errorLines(output)).toHaveLength(5);
    expect(output).not.toContain("Photo");
  });

  it("broken-paths: only the mistyped paths and topics fail; the right ones, external, computed and public ones do not", () => {
    // Eight mistakes: anything more is a right path refused (Index.tsx's lines 17 and on, Done.ts's line 7, the test's computed path).
    expect(errorLines((results.get("broken-paths") as Built).output)).toHaveLength(8);
  });

  it("admin-errors and admin-no-roles: the declarations' mistakes alone (the models written right and the pages are quiet)", () => {
    expect(errorLines((results.get("admin-errors") as Built).output)).toHaveLength(6);
    expect(errorLines((results.get("admin-no-roles") as Built).output)).toHaveLength(2);
  });

  it("duplicate-model: the two models' diagnostics alone (a link to /notes and a page asking for Note's store are not mistakes of their own)", () => {
    expect(errorLines((results.get("duplicate-model") as Built).output)).toHaveLength(2);
  });

  it("extra-routes-errors: the three wrong entries alone (the right one answers the page's link to /health)", () => {
    expect(errorLines((results.get("extra-routes-errors") as Built).output)).toHaveLength(3);
  });

  it("form-method-override: the three forms whose _method no route takes alone (PUT and DELETE at a task, in any case, a POST, a computed _method pass)", () => {
    expect(errorLines((results.get("form-method-override") as Built).output)).toHaveLength(3);
  });

  it("fails under --noEmit too (the diagnostics are semantic, not emit-time)", () => {
    expect(noEmit.code).not.toBe(0);
    expect(noEmit.output).toContain("error TS91004");
  });

  it("fails under --incremental (the builder's diagnostics path)", () => {
    expect(incremental.code).not.toBe(0);
    expect(incremental.output).toContain("error TS91006");
  });
});
