// Issue 41, items 6 and 7: a user's own data in the example, booted in production (as `npm
// start` builds it) on the default engine, its files on disk in its own working directory, its
// mail delivered by its DeliverMail job to a real SMTP server (smtp-server, on loopback): the
// test reads every link out of what that server received. "Download my data" gives the member
// a zip of their posts and comments with the post's cover and the comment's attachment, and
// nobody else's; deleting the account then deletes their comments (the attachment's file at
// once) and keeps their posts with no author (the cover kept: it is the post's).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unzip } from "../support/zip.js";
import { tokenParts } from "../../runtime/auth/api-token-store.js";
import { storageAt } from "../../runtime/files/index.js";
import { TestClient, testFile } from "../../runtime/testing/index.js";
import { png } from "../files/support.js";
import { bootExample, exampleCwd, exampleStorage } from "../support/example.js";
import { PRODUCTION_ENV } from "../support/serve.js";
import { smtpServer, type TestSmtpServer } from "../support/smtp-server.js";

const PASSWORD = "plum orbit velvet 9271";
const cwd = exampleCwd();
const storage = storageAt(exampleStorage(cwd));
let smtp: TestSmtpServer;
let app: ReturnType<typeof bootExample>;
let url: string;

beforeAll(async () => {
  smtp = await smtpServer();
  app = bootExample([], { ...PRODUCTION_ENV, FW_MAILBOX: "", SMTP_URL: smtp.url }, { cwd });
  url = await app.url;
}, 120_000);

afterAll(async () => {
  app?.child.kill("SIGTERM");
  await app?.exited;
  await smtp?.close();
});

/** The link with a token in the message the SMTP server received for `to` with `subject` (quoted-printable undone), as a path. */
async function mailedLink(to: string, subject: string): Promise<string> {
  const until = Date.now() + 20_000;
  for (;;) {
    const raw = smtp.received.find((mail) => mail.to.includes(to) && mail.raw.includes(`Subject: ${subject}`))?.raw;
    if (raw !== undefined) {
      const text = raw.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_all, hex: string) => String.fromCharCode(parseInt(hex, 16)));
      const link = /http:\/\/localhost(\/[^\s"<>]*token=[A-Za-z0-9_.-]+)/.exec(text)?.[1];
      if (link === undefined) throw new Error(`the mail "${subject}" to ${to} has no link with a token`);
      return link;
    }
    if (Date.now() > until) throw new Error(`no mail "${subject}" to ${to} reached the SMTP server`);
    await new Promise((done) => setTimeout(done, 100));
  }
}

/** Signs up through the form and the confirmation link the SMTP server got. */
async function member(name: string): Promise<{ client: TestClient; email: string }> {
  const client = new TestClient(url);
  const email = `${name}-${process.pid}@example.com`;
  expect((await client.submit("/signup", { email, password: PASSWORD })).status).toBe(303);
  const opened = await client.get(await mailedLink(email, "Confirm your email"));
  const confirmed = await client.submit(opened.location as string, {}, { action: opened.location as string });
  expect([confirmed.status, confirmed.location]).toEqual([303, "/"]);
  return { client, email };
}

describe("issue 41: a user's own data in the example (production, SMTP)", () => {
  it("Download my data gives the member's posts and comments with their files, nobody else's, and names their API token without it; deleting the account then deletes the comments (the attachment at once) and keeps the posts without an author, cover kept", async () => {
    const { client: ada, email } = await member("ada");
    const { client: ben } = await member("ben");
    const posted = await ada.submit("/posts/new", { title: "Harbour at noon", body: "Boats.", category: "news", published: "true", cover: testFile("harbour.png", png(80, 60), "image/png") });
    expect(posted.status, posted.summary()).toBe(303);
    const post = posted.location as string;
    const id = post.split("/").pop() as string;
    const cover = /\/cover\/([0-9a-f]{32})\/large/.exec((await ada.get(post)).text)?.[1] as string;
    const commented = await ada.submit(`/comments/new?post=${id}`, { post: id, body: "Ada's own comment", attachment: testFile("notes.txt", "ada's notes\n", "text/plain") });
    expect(commented.status, commented.summary()).toBe(303);
    const comment = commented.location as string;
    const attachment = new RegExp(`${comment}/attachment/([0-9a-f]{32})`).exec((await ada.get(comment)).text)?.[1] as string;
    expect((await ben.submit(`/comments/new?post=${id}`, { post: id, body: "A reply from Ben" })).status).toBe(303);
    expect((await ben.submit("/posts/new", { title: "Another post by Ben", body: "Mine.", category: "misc", published: "true" })).status).toBe(303);

    // An API token of Ada's: the export says it exists (name, scopes, dates), never the token.
    const tokenForm = (await ada.get("/account")).forms().find((f) => f.action === "/account/tokens");
    const tokenBody = new URLSearchParams({ _csrf: tokenForm?.fields["_csrf"] ?? "", name: "backup script", days: "30", current: PASSWORD });
    tokenBody.append("scope", "posts:write");
    const tokenPage = await (await fetch(`${url}/account/tokens`, { method: "POST", headers: { cookie: ada.cookies.header() ?? "", "content-type": "application/x-www-form-urlencoded" }, body: tokenBody })).text();
    const token = /<code class="fw-token">([^<]+)<\/code>/.exec(tokenPage)?.[1] as string;
    expect(token, tokenPage.slice(0, 2000)).toMatch(/^fwt_/);

    const asked = await ada.submit("/account", {}, { action: "/account/data" });
    expect([asked.status, asked.location]).toEqual([303, "/account"]);
    const link = await mailedLink(email, "Your data is ready to download");
    const page = link.split("?")[0] as string;
    await ada.get(link);
    const shown = await ada.get(page);
    expect(shown.status).toBe(200);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(shown.text)?.[1] as string;
    const sent = await fetch(url + page, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded", cookie: ada.cookies.header() ?? "" }, body: new URLSearchParams({ _csrf: csrf }).toString() });
    expect([sent.status, sent.headers.get("content-type")]).toEqual([200, "application/zip"]);
    const entries = await unzip(Buffer.from(await sent.arrayBuffer()));
    const json = (entries.get("data.json") as Buffer).toString("utf8");
    const data = JSON.parse(json) as { account: { email: string; roles: string[] }; models: Record<string, Record<string, unknown>[]> };
    expect(data.account).toEqual({
      id: expect.any(Number),
      email,
      roles: [],
      apiTokens: [{ name: "backup script", scopes: ["posts:write"], createdAt: expect.any(String), expiresAt: expect.any(String), lastUsedAt: null }],
      passkeys: [],
      twoStepSignIn: false,
      signInProviders: [],
      teams: [],
    });
    const parts = tokenParts(token);
    for (const secret of [token, parts?.selector, parts?.verifierHash]) expect(json).not.toContain(secret as string);
    expect(data.models["Post"]?.map((p) => p["title"])).toEqual(["Harbour at noon"]);
    expect(data.models["Comment"]?.map((c) => c["body"])).toEqual(["Ada's own comment"]);
    expect(json).not.toContain("Ben");
    const coverFile = (data.models["Post"]?.[0]?.["cover"] as { file: string }).file;
    const attachmentFile = (data.models["Comment"]?.[0]?.["attachment"] as { file: string }).file;
    expect([...entries.keys()].sort()).toEqual(["data.json", attachmentFile, coverFile].sort());
    expect(entries.get(attachmentFile)?.toString()).toBe("ada's notes\n");
    const served = Buffer.from(await (await fetch(`${url}${post}/cover/${cover}`)).arrayBuffer());
    expect(entries.get(coverFile)?.equals(served)).toBe(true);

    const deleted = await ada.submit("/account", { current: PASSWORD }, { action: "/account/delete" });
    expect([deleted.status, deleted.location]).toEqual([303, "/"]);
    const visitor = new TestClient(url);
    expect((await visitor.get(comment)).status).toBe(404);
    const kept = await visitor.get(post);
    expect([kept.status, kept.text.includes("Harbour at noon"), kept.text.includes("A reply from Ben")]).toEqual([200, true, true]);
    const until = Date.now() + 15_000;
    while (await storage.exists(attachment)) {
      if (Date.now() > until) throw new Error("the deleted comment's attachment is still stored after 15 s");
      await new Promise((done) => setTimeout(done, 200));
    }
    expect(await storage.exists(cover)).toBe(true);
    expect((await visitor.get(`${post}/cover/${cover}`)).status).toBe(200);
  });
});
