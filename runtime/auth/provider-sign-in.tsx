import { createHash, randomBytes } from "node:crypto";
import type { Html } from "../html/node.js";
import type { Request } from "../http/request.js";
import { Redirect, status, type Response } from "../http/response.js";
import { withoutReserved, withReserved, type Session } from "../http/session.js";
import { Route } from "../routing/route.js";
import { sameSecret } from "./account-tokens.js";
import type { IdentityStore } from "./identity-store.js";
import { safeNext } from "./next-path.js";
import { ProviderError, type SignInProvider } from "./providers.js";
import type { SecondFactor } from "./second-factor.js";
import { signedInSession } from "./session-user.js";
import { normalEmail, type UserFields, type Users } from "./users.js";

/** The session entry of a flow under way: which provider, its `state`, `nonce`, PKCE verifier, the user linking (0: none), where to go, when. */
const FLOW_ENTRY = "_oauth";
/** The session entry of a provider account waiting for the password of the account its email has (linking after the password). */
export const PENDING_LINK_ENTRY = "_link";
/** A flow must come back within 10 minutes. */
const FLOW_TTL_MS = 10 * 60_000;
/** What a provider-made account's password hash is: no password matches it (verifyPassword refuses what it did not write). */
export const NO_PASSWORD = "none";

interface Flow {
  readonly p: string;
  readonly s: string;
  readonly n: string;
  readonly v: string;
  readonly l: number;
  readonly x: string;
  readonly t: number;
}

/** What the provider flows need of the form sign-in. */
export interface ProviderSettings<U extends UserFields> {
  readonly providers: readonly SignInProvider[];
  readonly users: Users<U>;
  readonly identities: IdentityStore;
  readonly base: string;
  readonly loginPath: string;
  readonly accountPath: string;
  readonly currentUser: (request: Request) => Promise<U | undefined>;
  readonly secondFactor?: SecondFactor<U>;
  /** Other ways in the user has besides a password and providers (passkeys): unlinking keeps one. */
  readonly otherWaysIn?: (userId: number) => Promise<number>;
  readonly now?: () => number;
}

/**
 * "Sign in with …" (issue 42, item 1): the authorization code flow with PKCE, `state` and (OIDC)
 * `nonce`, kept in the signed session between the start (a POST with the CSRF token) and the
 * callback. The account rules: a provider account already linked signs its user in; one not
 * linked makes a new account only from an email the provider verified and no account has; an
 * email that has an account is never linked by itself (that would hand the account to whoever
 * controls the address at the provider): the browser is asked for that account's password, and
 * the link is made once it signs in, or from `/account` while signed in. Unlinking keeps one way in.
 */
export class ProviderSignIn<U extends UserFields> {
  private readonly now: () => number;

  constructor(private readonly settings: ProviderSettings<U>) {
    this.now = settings.now ?? Date.now;
  }

  /** The start and callback routes of each provider, and the unlink form's. */
  routes(): Route[] {
    const source = "fw/auth";
    return [
      ...this.settings.providers.flatMap((provider) => [
        Route.post(this.startPath(provider), (request) => this.start(request, provider), { source }),
        Route.get(this.callbackPath(provider), (request) => this.callback(request, provider), { source }),
      ]),
      Route.post(`${this.settings.accountPath}/providers/unlink`, (request) => this.unlink(request), { source }),
    ];
  }

  /** The providers' buttons' targets, for the sign-in and account pages. */
  buttons(request: Request): { readonly name: string; readonly label: string; readonly action: string }[] {
    return this.settings.providers.map((provider) => ({ name: provider.name, label: provider.label, action: request.href(this.startPath(provider)) }));
  }

  /** The user's linked providers, and the ones they may link. */
  async linked(userId: number): Promise<readonly { readonly name: string; readonly label: string; readonly email: string | undefined }[]> {
    const records = await this.settings.identities.list(userId);
    return this.settings.providers.map((provider) => ({ name: provider.name, label: provider.label, email: records.find((r) => r.provider === provider.name)?.email }));
  }

  /**
   * After a password sign-in: the provider account that waited for it (its email had this
   * account) is linked now. Answers the notice to show, or undefined when nothing waited.
   */
  async linkAfterPassword(session: Session, user: U): Promise<string | undefined> {
    const pending = session.get(PENDING_LINK_ENTRY);
    if (pending === undefined) return undefined;
    const [provider, subject, email] = pending.split("\n");
    const known = this.settings.providers.find((p) => p.name === provider);
    if (known === undefined || subject === undefined || email !== user.email) return undefined;
    const linked = await this.settings.identities.link({ provider: known.name, subject, userId: user.id, email });
    return linked ? `${known.label} is linked to your account: you can sign in with it from now on.` : undefined;
  }

  // ——— The flow ———

  private startPath(provider: SignInProvider): string {
    return `${this.settings.base}/login/with/${provider.name}`;
  }

  private callbackPath(provider: SignInProvider): string {
    return `${this.startPath(provider)}/callback`;
  }

  /** POST /login/with/<name>: the checks made up and kept in the session, 303 to the provider. `link=1` from /account links instead. */
  private async start(request: Request, provider: SignInProvider): Promise<Response> {
    const linking = request.form.get("link") === "1" ? await this.settings.currentUser(request) : undefined;
    if (request.form.get("link") === "1" && linking === undefined) return Redirect(request.href(this.settings.loginPath));
    const verifier = random();
    const flow: Flow = { p: provider.name, s: random(), n: random(), v: verifier, l: linking?.id ?? 0, x: safeNext(request.form.get("next")), t: this.now() };
    let url: URL;
    try {
      url = await provider.authorizationUrl({ redirectUri: this.redirectUri(request, provider), state: flow.s, nonce: flow.n, codeChallenge: challengeOf(verifier) });
    } catch (error) {
      return this.problem(request, 503, `${provider.label} cannot be reached`, `Signing in with ${provider.label} is not possible right now: ${describe(error)}. Try again later, or sign in with your password.`);
    }
    return Redirect(url.href).withSession(withReserved(request.session, FLOW_ENTRY, JSON.stringify(flow)));
  }

  /** GET …/callback: the state checked first (CSRF), then the provider's answer, then the account rules. */
  private async callback(request: Request, provider: SignInProvider): Promise<Response> {
    const flow = this.flowOf(request.session, provider);
    const session = withoutReserved(request.session, FLOW_ENTRY);
    const state = request.query.get("state") ?? "";
    if (flow === undefined || state === "" || !sameSecret(state, flow.s)) {
      return this.problem(request, 400, "This sign-in did not start here", `This answer from ${provider.label} does not belong to a sign-in this browser started (or it is over 10 minutes old): nothing was changed. Start again from the sign-in page.`, session);
    }
    const error = request.query.get("error");
    if (error !== undefined) {
      const denied = error === "access_denied";
      return this.problem(request, 403, denied ? "Sign-in cancelled" : "Sign-in refused", denied ? `You did not allow ${provider.label} to sign you in here: nothing was changed.` : `${provider.label} refused the sign-in (${error.slice(0, 80)}): nothing was changed.`, session);
    }
    let identity;
    try {
      identity = await provider.identity({ callbackUrl: this.callbackUrl(request, provider), state: flow.s, nonce: flow.n, codeVerifier: flow.v });
    } catch (failure) {
      if (failure instanceof ProviderError && failure.failure === "unreachable") {
        return this.problem(request, 503, `${provider.label} cannot be reached`, `Signing in with ${provider.label} could not be finished: ${failure.message}. Try again later.`, session);
      }
      return this.problem(request, 400, "Sign-in refused", `${provider.label}'s answer did not pass its checks (${describe(failure)}): nothing was changed. Start again from the sign-in page.`, session);
    }
    return flow.l !== 0 ? this.link(request, session, provider, identity, flow.l) : this.signIn(request, session, provider, identity, flow.x);
  }

  /** From /account: the provider account is linked to the signed-in user who started the flow. */
  private async link(request: Request, session: Session, provider: SignInProvider, identity: { subject: string; email: string | undefined }, userId: number): Promise<Response> {
    const viewer = await this.settings.currentUser(request);
    if (viewer === undefined || viewer.id !== userId) return this.problem(request, 400, "Sign in again", "The account that asked for this link is not the one signed in here now: nothing was linked.", session);
    const holder = await this.settings.identities.find(provider.name, identity.subject);
    if (holder !== undefined && holder.userId !== userId) return this.problem(request, 409, "Linked to another account", `This ${provider.label} account is linked to another account of this site: unlink it there first.`, session);
    if (holder === undefined) await this.settings.identities.link({ provider: provider.name, subject: identity.subject, userId, email: identity.email ?? "" });
    return Redirect(request.href(this.settings.accountPath)).withSession(session.flash("notice", `${provider.label} is linked to your account.`));
  }

  /** Signing in: a linked account's user; else a new account from a verified email no account has; never a match by email alone. */
  private async signIn(request: Request, session: Session, provider: SignInProvider, identity: { subject: string; email: string | undefined; emailVerified: boolean }, next: string): Promise<Response> {
    const linked = await this.settings.identities.find(provider.name, identity.subject);
    if (linked !== undefined) {
      const user = await this.settings.users.byId(linked.userId);
      if (user !== undefined) return this.signedIn(request, session, user, next, `You are signed in with ${provider.label}.`);
    }
    if (identity.email === undefined || !identity.emailVerified) {
      return this.problem(request, 403, "Email not verified", `${provider.label} did not say that it verified your email, so no account is made from it: verify it there, or sign up with your email here.`, session);
    }
    const email = normalEmail(identity.email);
    const existing = await this.settings.users.byEmail(email);
    if (existing !== undefined) {
      // Never linked by the email alone: whoever holds that address at the provider is not proven to be this account's owner.
      const waiting = withReserved(session, PENDING_LINK_ENTRY, `${provider.name}\n${identity.subject}\n${email}`);
      return Redirect(request.href(this.settings.loginPath)).withSession(
        waiting.flash("notice", `An account with ${email} exists already. Sign in with its password to link ${provider.label} to it (or link it later from your account page).`),
      );
    }
    const user = await this.settings.users.create(email, NO_PASSWORD);
    if (user === undefined) return this.problem(request, 409, "Try again", "An account with this email was made meanwhile: sign in with it.", session);
    await this.settings.identities.link({ provider: provider.name, subject: identity.subject, userId: user.id, email });
    return this.signedIn(request, session, user, next, `Your account is made with ${provider.label}, and you are signed in.`);
  }

  private signedIn(request: Request, session: Session, user: U, next: string, notice: string): Promise<Response> | Response {
    const target = next === "/" ? request.href("/") : next;
    const second = this.settings.secondFactor;
    const finish = (): Response => Redirect(target).withSession(signedInSession(session, user).flash("notice", notice));
    if (second === undefined) return finish();
    // Two-step sign-in stays on whichever way the first step was made.
    return second.isOn(user.id).then((on) => (on ? second.ask(request, user, next) : finish()));
  }

  /** POST /account/providers/unlink: unlinks one, when another way in remains (a password, another provider, a passkey). */
  private async unlink(request: Request): Promise<Response> {
    const user = await this.settings.currentUser(request);
    if (user === undefined) return Redirect(request.href(this.settings.loginPath));
    const name = request.form.get("provider") ?? "";
    const provider = this.settings.providers.find((p) => p.name === name);
    const records = await this.settings.identities.list(user.id);
    if (provider === undefined || !records.some((r) => r.provider === name)) return Redirect(request.href(this.settings.accountPath)).withSession(request.session.flash("notice", "There is no such link."));
    const password = user.passwordHash === NO_PASSWORD ? 0 : 1;
    const others = (await this.settings.otherWaysIn?.(user.id)) ?? 0;
    if (password + others + records.length - 1 < 1) {
      return this.problem(request, 409, "Keep one way in", `${provider.label} is the only way into your account: choose a password first ("Forgot your password?" sends a link), or link another provider, then unlink ${provider.label}.`);
    }
    await this.settings.identities.unlink(user.id, name);
    return Redirect(request.href(this.settings.accountPath)).withSession(request.session.flash("notice", `${provider.label} is unlinked from your account.`));
  }

  private flowOf(session: Session, provider: SignInProvider): Flow | undefined {
    const text = session.get(FLOW_ENTRY);
    if (text === undefined) return undefined;
    try {
      const flow = JSON.parse(text) as Flow;
      const age = this.now() - flow.t;
      return flow.p === provider.name && typeof flow.s === "string" && age >= 0 && age <= FLOW_TTL_MS ? flow : undefined;
    } catch {
      return undefined;
    }
  }

  /** Where the provider sends the browser back: this site's callback, on the origin the browser reached. */
  private redirectUri(request: Request, provider: SignInProvider): string {
    return `${request.secure ? "https" : "http"}://${request.headers.get("host") ?? "localhost"}${request.href(this.callbackPath(provider))}`;
  }

  private callbackUrl(request: Request, provider: SignInProvider): URL {
    const url = new URL(this.redirectUri(request, provider));
    for (const [name, value] of request.query.entries()) url.searchParams.append(name, value);
    return url;
  }

  private problem(request: Request, code: number, title: string, text: string, session?: Session): Response {
    const answer = status(code, providerProblemPage(title, text, request.href(this.settings.loginPath)));
    return session === undefined ? answer : answer.withSession(session);
  }
}

function providerProblemPage(title: string, text: string, login: string): Html {
  return (
    <>
      <title>{title}</title>
      <h1>{title}</h1>
      <p class="fw-auth-error" role="alert">
        {text}
      </p>
      <p>
        <a href={login}>Sign in</a>
      </p>
    </>
  );
}

function random(): string {
  return randomBytes(32).toString("base64url");
}

/** PKCE's S256 challenge of a verifier (RFC 7636). */
function challengeOf(verifier: string): string {
  return createHash("sha256").update(verifier).digest("base64url");
}

function describe(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 200);
}
