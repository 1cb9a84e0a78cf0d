import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { AuthenticationResponseJSON, AuthenticatorTransport, RegistrationResponseJSON } from "@simplewebauthn/server";
import type { Html } from "../html/node.js";
import { noneMatchHits } from "../http/etag.js";
import type { Request } from "../http/request.js";
import { Redirect, Response, status } from "../http/response.js";
import type { Session } from "../http/session.js";
import { asFwEndpoint } from "../routing/fw-endpoint.js";
import { Route } from "../routing/route.js";
import { challengeCookie, clearedChallenge, readChallenge, type Ceremony } from "./passkey-challenge.js";
import type { PasskeyStore } from "./passkey-store.js";
import { safeNext } from "./next-path.js";
import { limiterKey, type AttemptLimiter } from "./rate-limit.js";
import { signedInSession } from "./session-user.js";
import { tooMany } from "./sign-in-pages.js";
import type { UserFields, Users } from "./users.js";

/** fw's passkey script: @simplewebauthn/browser's bundle and the few lines that wire the forms. */
export const PASSKEYS_SCRIPT_PATH = "/fw/passkeys.js";
/**
 * @simplewebauthn/server, loaded on the first ceremony: it weighs about 30 MB of memory and 0.3 s
 * of loading, which an app whose users never touch a passkey should not pay at boot.
 */
const webauthn = (): Promise<typeof import("@simplewebauthn/server")> => import("@simplewebauthn/server");

/** Passkeys one user may hold. */
export const MAX_PASSKEYS_PER_USER = 20;

/** What the passkeys need of the form sign-in. */
export interface PasskeySettings<U extends UserFields> {
  readonly store: PasskeyStore;
  readonly users: Users<U>;
  readonly base: string;
  readonly loginPath: string;
  readonly accountPath: string;
  readonly currentUser: (request: Request) => Promise<U | undefined>;
  readonly addressOf: (request: Request) => string | undefined;
  /** Sign-in attempts per address (the same budget as the password's failures). */
  readonly perAddress: AttemptLimiter;
  /** The site's name the browser shows when a passkey is made. Default: the host. */
  readonly rpName?: string;
  /** Other ways into the account besides passkeys (a password, a provider): removing the last passkey keeps one. */
  readonly otherWaysIn: (user: U) => Promise<number>;
  readonly now?: () => number;
}

/**
 * Passkeys (WebAuthn, through @simplewebauthn/server; its browser part served as
 * `/fw/passkeys.js`): made from `/account` (discoverable, so no email is typed to sign in), used
 * from the sign-in page (a button, and the browser's autofill where it offers passkeys:
 * conditional UI), listed and removed on `/account`. The challenge is random, kept in a signed
 * cookie of its own scoped to the ceremony's routes (passkey-challenge.ts: never the session,
 * which the options request, sent by a page's script, must not write), bound to the ceremony,
 * the session and the user adding a passkey, 5 minutes at most, and forgotten by every answer of
 * the ceremony's last step; the response's origin and RP ID (the host the browser reached) are
 * checked, its signature against the stored public key, its user handle against the passkey's
 * owner, and its signature counter must move forward (atomically, in the store).
 */
export class Passkeys<U extends UserFields> {
  private readonly now: () => number;

  constructor(private readonly settings: PasskeySettings<U>) {
    this.now = settings.now ?? Date.now;
  }

  routes(): Route[] {
    const source = "fw/auth";
    const { base, accountPath } = this.settings;
    return [
      asFwEndpoint(Route.api({ method: "GET", path: PASSKEYS_SCRIPT_PATH, source: "fw/auth passkeys client", handler: (request) => script(request.headers.get("if-none-match")) })),
      Route.post(`${accountPath}/passkeys/options`, (request) => this.registrationOptions(request), { source }),
      Route.post(`${accountPath}/passkeys`, (request) => this.register(request), { source }),
      Route.post(`${accountPath}/passkeys/remove`, (request) => this.remove(request), { source }),
      Route.post(`${base}/login/passkey/options`, (request) => this.authenticationOptions(request), { source }),
      Route.post(`${base}/login/passkey`, (request) => this.signIn(request), { source }),
    ];
  }

  /** The sign-in page's passkey form (a button; the script also offers passkeys in the email field's autofill). */
  signInForm(request: Request, csrf: string, next: string): Html {
    return (
      <form id="fw-passkey-sign-in" method="post" action={request.href(`${this.settings.base}/login/passkey`)} data-options={request.href(`${this.settings.base}/login/passkey/options`)} class="fw-form fw-auth fw-passkey">
        <input type="hidden" name="_csrf" value={csrf} />
        <input type="hidden" name="response" value="" />
        {next === "/" ? null : <input type="hidden" name="next" value={next} />}
        <button type="submit">Sign in with a passkey</button>
        <p class="fw-passkey-error" role="alert" hidden></p>
        <script src={PASSKEYS_SCRIPT_PATH} defer></script>
      </form>
    );
  }

  /** The account page's passkeys: the list with Remove, and the form that makes one. */
  async section(request: Request, user: U, csrf: string): Promise<Html> {
    const list = await this.settings.store.list(user.id);
    const account = this.settings.accountPath;
    return (
      <section id="passkeys">
        <h2>Passkeys</h2>
        <p>A passkey signs you in with your device's screen lock or security key, without a password.</p>
        {list.length === 0 ? (
          <p>You have no passkeys.</p>
        ) : (
          <ul class="fw-passkeys">
            {list.map((passkey) => (
              <li>
                <form method="post" action={request.href(`${account}/passkeys/remove`)} class="fw-inline">
                  <input type="hidden" name="_csrf" value={csrf} />
                  <input type="hidden" name="id" value={passkey.id} />
                  {passkey.name}, made {new Date(passkey.createdAt).toISOString().slice(0, 10)}, {passkey.lastUsedAt === undefined ? "never used" : `last used ${new Date(passkey.lastUsedAt).toISOString().slice(0, 16).replace("T", " ")} UTC`}.{" "}
                  <button type="submit">Remove {passkey.name}</button>
                </form>
              </li>
            ))}
          </ul>
        )}
        <form id="fw-passkey-register" method="post" action={request.href(`${account}/passkeys`)} data-options={request.href(`${account}/passkeys/options`)} class="fw-form fw-auth">
          <input type="hidden" name="_csrf" value={csrf} />
          <input type="hidden" name="response" value="" />
          <div class="fw-field">
            <label for="passkey-name">Name (which device)</label>
            <input id="passkey-name" name="name" type="text" maxlength="100" value="" />
          </div>
          <button type="submit">Add a passkey</button>
          <p class="fw-passkey-error" role="alert" hidden></p>
        </form>
        <script src={PASSKEYS_SCRIPT_PATH} defer></script>
      </section>
    );
  }

  /** The user's passkeys (unlinking a provider counts them as ways in). */
  async count(userId: number): Promise<number> {
    return (await this.settings.store.list(userId)).length;
  }

  // ——— Making one (signed in) ———

  private async registrationOptions(request: Request): Promise<Response> {
    const user = await this.settings.currentUser(request);
    if (user === undefined) return json(403, { error: "Sign in first." });
    const existing = await this.settings.store.list(user.id);
    const options = await (await webauthn()).generateRegistrationOptions({
      rpName: this.settings.rpName ?? rpIdOf(request),
      rpID: rpIdOf(request),
      userName: user.email,
      userID: new TextEncoder().encode(String(user.id)),
      attestationType: "none",
      excludeCredentials: existing.map((passkey) => ({ id: passkey.id, transports: passkey.transports as AuthenticatorTransport[] })),
      authenticatorSelection: { residentKey: "required", userVerification: "preferred" },
    });
    return json(200, options).withHeader("set-cookie", challengeCookie(request, { ceremony: "register", challenge: options.challenge, owner: String(user.id), path: this.pathOf(request, "register"), now: this.now() }));
  }

  private async register(request: Request): Promise<Response> {
    const user = await this.settings.currentUser(request);
    if (user === undefined) return Redirect(request.href(this.settings.loginPath));
    const read = readChallenge(request, "register", String(user.id), this.now());
    const response = parsed<RegistrationResponseJSON>(request.form.get("response"));
    const refused = (why: string): Response => this.refused(request, request.session, why).withHeader("set-cookie", clearedChallenge(request, "register", this.pathOf(request, "register")));
    if (!read.ok) return refused(`This passkey was not added: ${read.why}. Try again.`);
    if (response === undefined) return refused("This passkey was not added: the browser sent no answer from the authenticator. Try again.");
    const challenge = read.challenge;
    if ((await this.settings.store.list(user.id)).length >= MAX_PASSKEYS_PER_USER) return refused(`You have ${MAX_PASSKEYS_PER_USER} passkeys, the most an account may: remove one first.`);
    let verified;
    try {
      verified = await (await webauthn()).verifyRegistrationResponse({ response, expectedChallenge: challenge, expectedOrigin: originOf(request), expectedRPID: rpIdOf(request), requireUserVerification: false });
    } catch (error) {
      return refused(`The passkey did not pass its checks (${describe(error)}).`);
    }
    if (!verified.verified) return refused("The passkey did not pass its checks.");
    const credential = verified.registrationInfo.credential;
    const name = (request.form.get("name") ?? "").trim().slice(0, 100).replace(/\p{Cc}/gu, "") || "Passkey";
    const added = await this.settings.store.add({
      id: credential.id,
      userId: user.id,
      publicKey: Buffer.from(credential.publicKey).toString("base64url"),
      counter: credential.counter,
      transports: credential.transports ?? [],
      name,
      createdAt: this.now(),
      lastUsedAt: undefined,
    });
    if (!added) return refused("This passkey is saved already.");
    return Redirect(request.href(this.settings.accountPath))
      .withSession(request.session.flash("notice", `The passkey "${name}" is added: you can sign in with it.`))
      .withHeader("set-cookie", clearedChallenge(request, "register", this.pathOf(request, "register")));
  }

  private async remove(request: Request): Promise<Response> {
    const user = await this.settings.currentUser(request);
    if (user === undefined) return Redirect(request.href(this.settings.loginPath));
    const id = (request.form.get("id") ?? "").slice(0, 1024);
    const passkeys = await this.settings.store.list(user.id);
    if (!passkeys.some((passkey) => passkey.id === id)) return Redirect(request.href(this.settings.accountPath)).withSession(request.session.flash("notice", "There is no such passkey."));
    if (passkeys.length === 1 && (await this.settings.otherWaysIn(user)) === 0) {
      return this.refused(request, request.session, "This passkey is the only way into your account: choose a password first (\"Forgot your password?\" sends a link), then remove it.", 409);
    }
    await this.settings.store.remove(user.id, id);
    return Redirect(request.href(this.settings.accountPath)).withSession(request.session.flash("notice", "The passkey is removed: it signs nobody in from now on."));
  }

  // ——— Signing in with one ———

  private async authenticationOptions(request: Request): Promise<Response> {
    // Discoverable credentials: no list, the browser offers the passkeys it holds for this site.
    const options = await (await webauthn()).generateAuthenticationOptions({ rpID: rpIdOf(request), userVerification: "preferred" });
    return json(200, options).withHeader("set-cookie", challengeCookie(request, { ceremony: "sign-in", challenge: options.challenge, owner: "-", path: this.pathOf(request, "sign-in"), now: this.now() }));
  }

  private async signIn(request: Request): Promise<Response> {
    const forget = clearedChallenge(request, "sign-in", this.pathOf(request, "sign-in"));
    const wait = await this.settings.perAddress.attempt(limiterKey("passkey", this.settings.addressOf(request) ?? "unknown"));
    if (wait > 0) return tooMany(wait).withHeader("set-cookie", forget);
    const read = readChallenge(request, "sign-in", "-", this.now());
    const response = parsed<AuthenticationResponseJSON>(request.form.get("response"));
    const refused = (why: string): Response => status(400, passkeyProblem(why, request.href(this.settings.loginPath))).withHeader("set-cookie", forget);
    if (!read.ok) return refused(`This sign-in was refused: ${read.why}. Try again.`);
    if (response === undefined || typeof response.id !== "string") return refused("This sign-in was refused: the browser sent no answer from the authenticator. Try again.");
    const challenge = read.challenge;
    const passkey = await this.settings.store.find(response.id.slice(0, 1024));
    if (passkey === undefined) return refused("This passkey is not known here (it was removed, or made for another site).");
    // The user handle the authenticator sent is the passkey's owner, or the assertion is another user's.
    const handle = response.response?.userHandle;
    if (handle !== undefined && handle !== Buffer.from(String(passkey.userId)).toString("base64url")) return refused("This passkey belongs to another account.");
    let verified;
    try {
      verified = await (await webauthn()).verifyAuthenticationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: originOf(request),
        expectedRPID: rpIdOf(request),
        credential: { id: passkey.id, publicKey: Buffer.from(passkey.publicKey, "base64url"), counter: passkey.counter, transports: passkey.transports as AuthenticatorTransport[] },
        requireUserVerification: false,
      });
    } catch (error) {
      return refused(`The passkey's answer did not pass its checks (${describe(error)}).`);
    }
    if (!verified.verified) return refused("The passkey's answer did not pass its checks.");
    if (!(await this.settings.store.use(passkey.id, verified.authenticationInfo.newCounter, this.now()))) return refused("This passkey's answer was used already (its counter did not move forward).");
    const user = await this.settings.users.byId(passkey.userId);
    if (user === undefined) return refused("This passkey's account is gone.");
    await this.settings.perAddress.refund(limiterKey("passkey", this.settings.addressOf(request) ?? "unknown"));
    const next = safeNext(request.form.get("next"));
    return Redirect(next === "/" ? request.href("/") : next)
      .withSession(signedInSession(request.session, user).flash("notice", "You are signed in with a passkey."))
      .withHeader("set-cookie", forget);
  }

  /** Where a ceremony's challenge cookie is sent: its routes, as browsers reach them (`/login/passkey`, `/account/passkeys`). */
  private pathOf(request: Request, ceremony: Ceremony): string {
    return request.href(ceremony === "sign-in" ? `${this.settings.base}/login/passkey` : `${this.settings.accountPath}/passkeys`);
  }

  private refused(request: Request, session: Session, why: string, code = 400): Response {
    return status(code, passkeyProblem(why, request.href(this.settings.accountPath))).withSession(session);
  }
}

/** The RP ID: the host the browser reached, without its port (what a passkey is bound to). */
function rpIdOf(request: Request): string {
  return (request.headers.get("host") ?? "localhost").replace(/:\d+$/, "").replace(/^\[|\]$/g, "");
}

/** The origin the browser reached (the response's clientData must name it exactly). */
function originOf(request: Request): string {
  return `${request.secure ? "https" : "http"}://${request.headers.get("host") ?? "localhost"}`;
}

function parsed<T>(text: string | undefined): T | undefined {
  if (text === undefined || text === "" || text.length > 64 * 1024) return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === "object" && value !== null ? (value as T) : undefined;
  } catch {
    return undefined;
  }
}

function json(code: number, value: unknown): Response {
  return status(code, JSON.stringify(value), { contentType: "application/json" });
}

function passkeyProblem(why: string, back: string): Html {
  return (
    <>
      <title>Passkey refused</title>
      <h1>Passkey refused</h1>
      <p class="fw-auth-error" role="alert">
        {why}
      </p>
      <p>
        <a href={back}>Back</a>
      </p>
    </>
  );
}

function describe(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 200);
}

/** The browser part: @simplewebauthn/browser's bundle (a global, SimpleWebAuthnBrowser), then the forms' wiring. */
const WIRING = `
;(() => {
  const webauthn = window.SimpleWebAuthnBrowser;
  const say = (form, error) => { const p = form.querySelector(".fw-passkey-error"); if (p) { p.hidden = false; p.textContent = String(error && error.message || error); } };
  const options = async (form) => {
    const answer = await fetch(form.dataset.options, { method: "POST", credentials: "same-origin", body: new URLSearchParams({ _csrf: form.elements._csrf.value }) });
    if (!answer.ok) throw new Error("The server refused: " + answer.status);
    return answer.json();
  };
  const send = (form, response) => { form.elements.response.value = JSON.stringify(response); HTMLFormElement.prototype.submit.call(form); };
  const register = document.getElementById("fw-passkey-register");
  if (register && !register.dataset.wired) {
    register.dataset.wired = "1";
    register.addEventListener("submit", async (event) => {
      event.preventDefault();
      try { send(register, await webauthn.startRegistration({ optionsJSON: await options(register) })); } catch (error) { say(register, error); }
    });
  }
  const signIn = document.getElementById("fw-passkey-sign-in");
  if (signIn && !signIn.dataset.wired) {
    signIn.dataset.wired = "1";
    if (!webauthn.browserSupportsWebAuthn()) signIn.hidden = true;
    signIn.addEventListener("submit", async (event) => {
      event.preventDefault();
      try { send(signIn, await webauthn.startAuthentication({ optionsJSON: await options(signIn) })); } catch (error) { say(signIn, error); }
    });
    // Conditional UI: the browser offers the site's passkeys in the email field's autofill.
    webauthn.browserSupportsWebAuthnAutofill().then(async (yes) => {
      if (!yes || !document.querySelector("input[autocomplete~=webauthn]")) return;
      send(signIn, await webauthn.startAuthentication({ optionsJSON: await options(signIn), useBrowserAutofill: true }));
    }).catch(() => {});
  }
})();
`;

let client: { readonly text: string; readonly etag: string } | undefined;

function script(ifNoneMatch: string | undefined): Response {
  if (client === undefined) {
    const entry = createRequire(import.meta.url).resolve("@simplewebauthn/browser");
    const bundle = readFileSync(join(dirname(entry), "..", "dist", "bundle", "index.umd.min.js"), "utf8");
    const text = `${bundle}\n${WIRING}`;
    client = { text, etag: `"${createHash("sha256").update(text).digest("base64url").slice(0, 22)}"` };
  }
  const validators: [string, string][] = [
    ["etag", client.etag],
    ["cache-control", "no-cache"],
  ];
  if (noneMatchHits(ifNoneMatch, client.etag)) return new Response(304, validators);
  return new Response(200, [["content-type", "text/javascript; charset=utf-8"], ...validators], { type: "text", text: client.text });
}
