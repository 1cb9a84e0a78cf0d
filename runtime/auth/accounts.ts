import type { Html } from "../html/node.js";
import type { Request } from "../http/request.js";
import { Ok, Redirect, status, type Response } from "../http/response.js";
import { withoutReserved, withReserved, type Session } from "../http/session.js";
import { listed } from "../resource/words.js";
import { Route } from "../routing/route.js";
import {
  changeEmailMail,
  confirmEmailPage,
  confirmMail,
  confirmPage,
  deadLinkPage,
  deletedMail,
  existingAccountMail,
  forgotPage,
  noticeMail,
  resetMail,
  resetPage,
  saidPage,
  settingsPage,
  type AccountPaths,
  type SettingsState,
} from "./account-pages.js";
import { freshApiToken } from "./api-token-store.js";
import { MAX_TOKENS_PER_USER, type ApiTokens } from "./api-tokens.js";
import { TOKEN_DAYS, tokenCreatedMail, type TokenSection } from "./token-pages.js";
import type { SecondFactor } from "./second-factor.js";
import type { SecondFactorSection } from "./second-factor-pages.js";
import type { ProviderSignIn } from "./provider-sign-in.js";
import type { ProvidersSection } from "./account-pages.js";
import type { Passkeys } from "./passkeys.js";
import { checkToken, freshToken, InMemoryTokens, sameSecret, type AccountTokens, type TokenPurpose } from "./account-tokens.js";
import { verifyPassword } from "./password.js";
import { limiterKey, RateLimiter, type AttemptLimiter, type Limit } from "./rate-limit.js";
import { signedInSession } from "./session-user.js";
import { tooMany } from "./sign-in-pages.js";
import { checkEmail, newPasswordProblem } from "./signup.js";
import { normalEmail, type UserFields, type Users } from "./users.js";

/**
 * What fw/auth needs of a mailer: fw/mail's `Mailer` is one (`send` composes the JSX body, makes
 * app paths absolute on the public origin, and delivers). fw/auth never imports fw/mail.
 * `envelope.to` is the address the users store holds, exactly: deliver there, and parse nothing
 * out of it (`to` is the same text, for the header).
 */
export interface AccountMailer {
  send(mail: { readonly to: string; readonly subject: string; readonly body: Html; readonly envelope: { readonly to: readonly string[] } }): Promise<unknown>;
}

/** How long each emailed link works. */
export const RESET_LINK_TTL_MS = 60 * 60_000;
export const CONFIRM_LINK_TTL_MS = 24 * 60 * 60_000;
export const EMAIL_LINK_TTL_MS = 24 * 60 * 60_000;

/**
 * The account forms per client address, all counted together: forgot, reset, confirm, confirm
 * the new email, and the settings' change password, change email, delete and sign out
 * everywhere. 20 per 15 minutes, then backoff.
 */
export const ACCOUNT_FORMS_PER_ADDRESS: Limit = { attempts: 20, windowMs: 15 * 60_000 };
/** Mails fw/auth sends to one address: 5 an hour. Past it, none is sent (the answer stays the same). */
export const MAILS_PER_ADDRESS: Limit = { attempts: 5, windowMs: 60 * 60_000 };
/** Current-password checks in the settings per (client address, account): 5 per 15 minutes, as sign-in. */
export const PASSWORD_CHECKS: Limit = { attempts: 5, windowMs: 15 * 60_000 };

/** The one answer to "Forgot your password?", whether or not the email has an account. */
export const RESET_SENT = "If an account has this email, we sent it a link to choose a new password. The link works once, for an hour.";

/**
 * Session entries (fw's own, "_" names) holding a link's token once it left the URL. Each its
 * own name: `_email` is the readable email an older fw wrote, which every guarded page drops
 * (session-user.ts), so a stash there was lost on the way to its button.
 */
const STASH: Readonly<Record<TokenPurpose, string>> = { "reset-password": "_reset", "confirm-signup": "_confirm", "change-email": "_email_link" };

/** What `Accounts` works with, from `formSignIn`. */
export interface AccountSettings<U extends UserFields> {
  readonly users: Users<U>;
  readonly mailer: AccountMailer;
  readonly tokens: AccountTokens;
  readonly base: string;
  readonly loginPath: string;
  readonly addressOf: (request: Request) => string | undefined;
  /** The user a request's session signs in (the guard's read). */
  readonly currentUser: (request: Request) => Promise<U | undefined>;
  /** Sets a password and ends every session (announced to every process). */
  readonly changePassword: (id: number, password: string) => Promise<U | undefined>;
  readonly logoutEverywhere: (id: number) => Promise<void>;
  readonly deleteUser: (id: number) => Promise<boolean>;
  /** The app's models (in the plural: "posts") that hold rows of user `id`: what a refused deletion names. */
  readonly ownedRows?: (id: number) => Promise<readonly string[]>;
  /** The per-user API tokens, when the sign-in has scopes: listed, created and revoked on the settings page. */
  readonly apiTokens?: ApiTokens;
  /** Two-step sign-in (TOTP): turned on and off on the settings page; a reset by mail then asks for a code too. */
  readonly secondFactor?: SecondFactor<U>;
  /** Passkeys: listed, added and removed on the settings page. */
  readonly passkeys?: Passkeys<U>;
  /** "Sign in with …": the settings page lists the providers with Link and Unlink. */
  readonly providers?: ProviderSignIn<U>;
  /** Where failures to send are told (the app's error stream). */
  readonly report?: (line: string) => void;
  readonly now?: () => number;
}

/**
 * The account flows of fw/auth, on when `formSignIn` is given a mailer: reset a forgotten
 * password, confirm the email on sign-up (the account is made, and its user signed in, when the
 * link is followed), and the settings page (change password, change email through a link to the
 * new address, sign out everywhere, delete the account). docs/security.md says what each promises.
 *
 * Every emailed token is random (16 + 32 bytes), stored as its selector and the SHA-256 of its
 * verifier, compared in constant time, used once (`take` is atomic), expires, and is bound to the
 * user's session epoch (a reset or sign out everywhere ends the links sent before). A link's
 * token leaves the URL at once: the first GET keeps it in the session and redirects to the
 * same path without it, so it lingers in no history, Referer or access log. Mail is sent after
 * the answer (never awaited): an answer never waits for, or tells of, a mail server.
 */
export class Accounts<U extends UserFields> {
  readonly paths: AccountPaths;
  private readonly formsPerAddress: AttemptLimiter;
  private readonly mailsPerAddress: AttemptLimiter;
  private readonly passwordChecks: AttemptLimiter;
  private readonly now: () => number;

  constructor(private readonly settings: AccountSettings<U>) {
    const base = settings.base;
    this.paths = {
      login: settings.loginPath,
      forgot: `${base}/password/forgot`,
      reset: `${base}/password/reset`,
      confirm: `${base}/confirm`,
      account: `${base}/account`,
      changePassword: `${base}/account/password`,
      changeEmail: `${base}/account/email`,
      confirmEmail: `${base}/account/email/confirm`,
      signOutEverywhere: `${base}/account/sign-out-everywhere`,
      deleteAccount: `${base}/account/delete`,
      createToken: `${base}/account/tokens`,
      revokeToken: `${base}/account/tokens/revoke`,
      beginSecondFactor: `${base}/account/two-step`,
      confirmSecondFactor: `${base}/account/two-step/confirm`,
      disableSecondFactor: `${base}/account/two-step/disable`,
    };
    const make = (scope: string, limit: Limit): AttemptLimiter => settings.users.attemptLimiter?.(scope, limit) ?? new RateLimiter(limit);
    this.formsPerAddress = make("account/address", ACCOUNT_FORMS_PER_ADDRESS);
    this.mailsPerAddress = make("account/mails-per-email", MAILS_PER_ADDRESS);
    this.passwordChecks = make("account/password-check", PASSWORD_CHECKS);
    this.now = settings.now ?? Date.now;
  }

  /** The routes, for `formSignIn` to carry. */
  routes(): Route[] {
    const source = "fw/auth";
    const p = this.paths;
    return [
      Route.get(p.forgot, (request) => this.forgotForm(request), { source }),
      Route.post(p.forgot, (request) => this.forgot(request), { source }),
      Route.get(p.reset, (request) => this.resetForm(request), { source }),
      Route.post(p.reset, (request) => this.reset(request), { source }),
      Route.get(p.confirm, (request) => this.confirmForm(request), { source }),
      Route.post(p.confirm, (request) => this.confirm(request), { source }),
      Route.get(p.account, (request) => this.settingsForm(request), { source }),
      Route.post(p.changePassword, (request) => this.changePassword(request), { source }),
      Route.post(p.changeEmail, (request) => this.changeEmail(request), { source }),
      Route.get(p.confirmEmail, (request) => this.confirmEmailForm(request), { source }),
      Route.post(p.confirmEmail, (request) => this.confirmEmail(request), { source }),
      Route.post(p.signOutEverywhere, (request) => this.signOutEverywhere(request), { source }),
      Route.post(p.deleteAccount, (request) => this.deleteAccount(request), { source }),
      ...(this.settings.apiTokens === undefined
        ? []
        : [Route.post(p.createToken, (request) => this.createToken(request), { source }), Route.post(p.revokeToken, (request) => this.revokeToken(request), { source })]),
      ...(this.settings.secondFactor === undefined
        ? []
        : [
            Route.post(p.beginSecondFactor, (request) => this.beginSecondFactor(request), { source }),
            Route.post(p.confirmSecondFactor, (request) => this.confirmSecondFactor(request), { source }),
            Route.post(p.disableSecondFactor, (request) => this.disableSecondFactor(request), { source }),
          ]),
    ];
  }

  /**
   * Sign-up with confirmation (from `Signup`): a new email gets a link that makes the account
   * (with this password hash) and signs its user in; an email with an account gets a mail
   * saying so. Either way the same work and the same answer.
   */
  async signUp(request: Request, email: string, passwordHash: string): Promise<void> {
    const paths = this.mounted(request);
    const existing = await this.settings.users.byEmail(email);
    const { token, record } = freshToken({ purpose: "confirm-signup", userId: 0, email, data: passwordHash, epoch: "", expiresAt: this.now() + CONFIRM_LINK_TTL_MS });
    if (existing === undefined) {
      await this.settings.tokens.save(record);
      this.mail(email, "Confirm your email", confirmMail(`${paths.confirm}?token=${token}`));
    } else {
      await this.settings.tokens.find(record.selector); // the same round trip as the save
      this.mail(email, "You already have an account", existingAccountMail(paths.login, paths.forgot));
    }
  }

  // ——— Forgot your password? ———

  private forgotForm(request: Request): Response {
    return Ok(forgotPage(this.mounted(request), request.csrf, ""));
  }

  private async forgot(request: Request): Promise<Response> {
    const limited = await this.limited(request);
    if (limited !== undefined) return limited;
    const typed = (request.form.get("email") ?? "").trim();
    const problem = checkEmail(typed);
    if (problem !== undefined) return status(422, forgotPage(this.mounted(request), request.csrf, typed.slice(0, 255), { email: problem }));
    const email = normalEmail(typed);
    const user = await this.settings.users.byEmail(email);
    const { token, record } = freshToken({ purpose: "reset-password", userId: user?.id ?? 0, email, data: "", epoch: user?.sessionEpoch ?? "", expiresAt: this.now() + RESET_LINK_TTL_MS });
    if (user !== undefined) {
      await this.settings.tokens.save(record);
      this.mail(user.email, "Choose a new password", resetMail(`${this.mounted(request).reset}?token=${token}`));
    } else {
      await this.settings.tokens.find(record.selector); // the same round trip as the save
    }
    return Redirect(this.mounted(request).login).withSession(request.session.flash("notice", RESET_SENT));
  }

  // ——— The reset link ———

  private async resetForm(request: Request): Promise<Response> {
    const moved = this.stashed(request, "reset-password", this.paths.reset);
    if (moved !== undefined) return moved;
    const found = await this.userToken(request.session, "reset-password");
    if (found === undefined) return this.deadLink(request, "password reset");
    return Ok(resetPage(this.mounted(request), request.csrf, found.user.email));
  }

  private async reset(request: Request): Promise<Response> {
    const limited = await this.limited(request);
    if (limited !== undefined) return limited;
    const found = await this.userToken(request.session, "reset-password");
    if (found === undefined) return this.deadLink(request, "password reset");
    const password = request.form.get("password") ?? "";
    const problem = await newPasswordProblem(password, found.user.email);
    if (problem !== undefined) return status(422, resetPage(this.mounted(request), request.csrf, found.user.email, { password: problem }));
    if (!(await this.settings.tokens.take(found.record.selector, found.verifierHash))) return this.deadLink(request, "password reset");
    const user = await this.settings.changePassword(found.user.id, password);
    if (user === undefined) return this.deadLink(request, "password reset");
    // A reset by mail proves the mailbox, not the second factor: it stays on, and signing in asks for a code.
    const second = this.settings.secondFactor;
    if (second !== undefined && (await second.isOn(user.id))) return second.ask(request, user, "/", "Your password is changed, and every other session is signed out. Enter a code to sign in.");
    const session = signedInSession(request.session, user).flash("notice", "Your password is changed, and every other session of your account is signed out.");
    return Redirect(request.href("/")).withSession(session);
  }

  // ——— Confirming a sign-up ———

  private async confirmForm(request: Request): Promise<Response> {
    const moved = this.stashed(request, "confirm-signup", this.paths.confirm);
    if (moved !== undefined) return moved;
    const found = await this.token(request.session, "confirm-signup");
    if (found === undefined) return this.deadLink(request, "confirmation");
    return Ok(confirmPage(this.mounted(request), request.csrf, found.record.email));
  }

  private async confirm(request: Request): Promise<Response> {
    const limited = await this.limited(request);
    if (limited !== undefined) return limited;
    const found = await this.token(request.session, "confirm-signup");
    if (found === undefined || !(await this.settings.tokens.take(found.record.selector, found.verifierHash))) return this.deadLink(request, "confirmation");
    const user = await this.settings.users.create(found.record.email, found.record.data);
    if (user === undefined) {
      // Confirmed twice through two sign-ups, or the address signed up meanwhile: it has an account.
      return Redirect(this.mounted(request).login).withSession(this.without(request.session, "confirm-signup").flash("notice", "This email has an account already: sign in."));
    }
    return Redirect(request.href("/")).withSession(signedInSession(request.session, user).flash("notice", "Your email is confirmed, and you are signed in."));
  }

  // ——— Account settings ———

  private async settingsForm(request: Request): Promise<Response> {
    const user = await this.settings.currentUser(request);
    if (user === undefined) return this.toLogin(request);
    return this.settingsRefused(request, user, {}, 200);
  }

  // ——— Two-step sign-in ———

  /** A new secret (the current password asked), shown as a QR code with a form for its first code. */
  private async beginSecondFactor(request: Request): Promise<Response> {
    const second = this.settings.secondFactor;
    if (second === undefined) return this.toLogin(request);
    const checked = await this.withCurrentPassword(request, "second-factor");
    if (!("user" in checked)) return checked.response;
    const setup = await second.begin(checked.user, this.issuer(request));
    if (setup === undefined) return this.settingsRefused(request, checked.user, { form: "second-factor", errors: { form: "Two-step sign-in is on already." } }, 409);
    return this.settingsRefused(request, checked.user, {}, 200, {}, { setup });
  }

  /** The first code confirms the secret: two-step sign-in is on, and the ten recovery codes are shown once. */
  private async confirmSecondFactor(request: Request): Promise<Response> {
    const checked = await this.withCode(request);
    if (!("user" in checked)) return checked.response;
    const { user, second } = checked;
    const codes = await second.confirm(user.id, request.form.get("code") ?? "");
    if (codes === undefined) return this.settingsRefused(request, user, { form: "second-factor", errors: { code: "The code is wrong: enter the one your app shows now." } });
    await second.passed(request, user.id);
    this.mail(user.email, "Two-step sign-in is on", noticeMail("Two-step sign-in was turned on for your account: signing in now asks for a code from your authenticator app.", this.mounted(request).forgot));
    return this.settingsRefused(request, user, {}, 200, {}, { recoveryCodes: codes });
  }

  /** Turning it off asks for a code (from the app, or a recovery code), never the password alone. */
  private async disableSecondFactor(request: Request): Promise<Response> {
    const checked = await this.withCode(request);
    if (!("user" in checked)) return checked.response;
    const { user, second } = checked;
    const result = await second.check(user.id, request.form.get("code") ?? "");
    if (result !== "ok") {
      const said = result === "used" ? "This code was used already: wait for the next one." : "The code is wrong.";
      return this.settingsRefused(request, user, { form: "second-factor", errors: { code: said } });
    }
    await second.passed(request, user.id);
    await second.store.disable(user.id);
    this.mail(user.email, "Two-step sign-in is off", noticeMail("Two-step sign-in was turned off for your account: signing in asks for your password alone.", this.mounted(request).forgot));
    return Redirect(this.mounted(request).account).withSession(request.session.flash("notice", "Two-step sign-in is off."));
  }

  /** The signed-in user of a second-factor form, counted in the account forms' budget and, as codes are, per (address, account). */
  private async withCode(request: Request): Promise<{ readonly user: U; readonly second: SecondFactor<U> } | { readonly response: Response }> {
    const limited = await this.limited(request);
    if (limited !== undefined) return { response: limited };
    const user = await this.settings.currentUser(request);
    const second = this.settings.secondFactor;
    if (user === undefined || second === undefined) return { response: this.toLogin(request) };
    const counted = await second.limited(request, user.id);
    return counted === undefined ? { user, second } : { response: counted };
  }

  /** What the authenticator app shows the account under: the site's host name. */
  private issuer(request: Request): string {
    const host = (request.headers.get("host") ?? "fw").replace(/:\d+$/, "");
    return /^[A-Za-z0-9.\-[\]:]{1,255}$/.test(host) ? host : "fw";
  }

  /** The settings page's providers: each with its linked email, or a Link button. */
  private async providersSection(request: Request, user: U): Promise<ProvidersSection | undefined> {
    const providers = this.settings.providers;
    if (providers === undefined) return undefined;
    const linked = await providers.linked(user.id);
    const actions = new Map(providers.buttons(request).map((button) => [button.name, button.action]));
    return { unlink: request.href(`${this.paths.account}/providers/unlink`), list: linked.map((p) => ({ ...p, action: actions.get(p.name) ?? "" })) };
  }

  /** The settings page's second-factor section. */
  private async secondFactorSection(request: Request, user: U, extra: Partial<SecondFactorSection>): Promise<SecondFactorSection | undefined> {
    const second = this.settings.secondFactor;
    if (second === undefined) return undefined;
    const record = await second.store.get(user.id);
    const enabled = record?.enabled === true;
    // A key shown but not confirmed yet (the page reloaded): shown again, with its form.
    const waiting = record !== undefined && !enabled && extra.setup === undefined ? { setup: { secret: record.secret, qr: await second.qrOf(record.secret, user.email, this.issuer(request)) } } : {};
    return { enabled, codesLeft: enabled ? (record?.recoveryHashes.length ?? 0) : 0, ...waiting, ...extra };
  }

  // ——— API tokens ———

  /**
   * A new token (name, lifetime, scopes; the current password asked, so a stolen session cannot
   * mint a token that outlives it): shown once on the answer, never kept; the owner is told by mail.
   */
  private async createToken(request: Request): Promise<Response> {
    const apiTokens = this.settings.apiTokens;
    if (apiTokens === undefined) return this.toLogin(request);
    const checked = await this.withCurrentPassword(request, "token");
    if (!("user" in checked)) return checked.response;
    const values = { name: (request.form.get("name") ?? "").trim().slice(0, 200), days: request.form.get("days") ?? "", scopes: request.form.getAll("scope").slice(0, 100) };
    const errors = tokenProblems(values, apiTokens.names());
    if (errors !== undefined) return this.settingsRefused(request, checked.user, { form: "token", errors }, 422, { values });
    const now = this.now();
    const { token, record } = freshApiToken({ userId: checked.user.id, name: values.name, scopes: [...new Set(values.scopes)], createdAt: now, expiresAt: now + Number(values.days) * 24 * 60 * 60_000 });
    if (!(await apiTokens.tokens.create(record, MAX_TOKENS_PER_USER))) {
      return this.settingsRefused(request, checked.user, { form: "token", errors: { form: `You hold ${MAX_TOKENS_PER_USER} tokens, the most an account may: revoke one first.` } }, 422, { values });
    }
    this.mail(checked.user.email, "A new API token was created", tokenCreatedMail(record.name, record.scopes, this.mounted(request).account));
    return this.settingsRefused(request, checked.user, {}, 200, { created: { name: record.name, token } });
  }

  /** Revokes one of the user's tokens: gone from the store, so no process accepts it from the next call on. */
  private async revokeToken(request: Request): Promise<Response> {
    const limited = await this.limited(request);
    if (limited !== undefined) return limited;
    const user = await this.settings.currentUser(request);
    const apiTokens = this.settings.apiTokens;
    if (user === undefined || apiTokens === undefined) return this.toLogin(request);
    const selector = (request.form.get("token") ?? "").slice(0, 100);
    const listed = (await apiTokens.tokens.list(user.id)).find((token) => token.selector === selector);
    const revoked = listed !== undefined && (await apiTokens.revoke(user.id, selector));
    const notice = revoked ? `The token "${listed.name}" is revoked: it works nowhere from now on.` : "There is no such token (revoked already?).";
    return Redirect(this.mounted(request).account).withSession(request.session.flash("notice", notice));
  }

  /** The settings page's token section (the user's tokens), when the sign-in has scopes. */
  private async tokenSection(user: U, extra: Partial<TokenSection> = {}): Promise<TokenSection | undefined> {
    const apiTokens = this.settings.apiTokens;
    if (apiTokens === undefined) return undefined;
    const scopes = apiTokens.names().map((name) => [name, apiTokens.scopes[name] ?? ""] as const);
    return { scopes, list: await apiTokens.tokens.list(user.id), now: this.now(), ...extra };
  }

  private async changePassword(request: Request): Promise<Response> {
    const checked = await this.withCurrentPassword(request, "password");
    if (!("user" in checked)) return checked.response;
    const password = request.form.get("password") ?? "";
    const problem = await newPasswordProblem(password, checked.user.email);
    if (problem !== undefined) return this.settingsRefused(request, checked.user, { form: "password", errors: { password: problem } });
    const user = await this.settings.changePassword(checked.user.id, password);
    if (user === undefined) return this.toLogin(request);
    this.mail(user.email, "Your password was changed", noticeMail("The password of your account was changed, and every other session was signed out.", this.mounted(request).forgot));
    return Redirect(this.mounted(request).account).withSession(signedInSession(request.session, user).flash("notice", "Your password is changed; every other session is signed out."));
  }

  private async changeEmail(request: Request): Promise<Response> {
    const checked = await this.withCurrentPassword(request, "email");
    if (!("user" in checked)) return checked.response;
    const typed = (request.form.get("email") ?? "").trim();
    const problem = checkEmail(typed);
    if (problem !== undefined) return this.settingsRefused(request, checked.user, { form: "email", errors: { email: problem }, newEmail: typed.slice(0, 255) });
    const email = normalEmail(typed);
    if (email === checked.user.email) return this.settingsRefused(request, checked.user, { form: "email", errors: { email: "This is your email already." }, newEmail: typed });
    const { token, record } = freshToken({ purpose: "change-email", userId: checked.user.id, email, data: "", epoch: checked.user.sessionEpoch, expiresAt: this.now() + EMAIL_LINK_TTL_MS });
    // Sent whether or not the address has an account (the link then says so): the form tells nobody which addresses do.
    await this.settings.tokens.save(record);
    const paths = this.mounted(request);
    this.mail(email, "Confirm your new email", changeEmailMail(`${paths.confirmEmail}?token=${token}`));
    this.mail(checked.user.email, "A change of your email was asked for", noticeMail(`Someone signed in to your account asked to change its email to ${email}. Nothing changes unless the link sent there is followed.`, paths.forgot));
    return Redirect(paths.account).withSession(request.session.flash("notice", `We sent a link to ${email}: follow it to make it your account's email.`));
  }

  private async confirmEmailForm(request: Request): Promise<Response> {
    const moved = this.stashed(request, "change-email", this.paths.confirmEmail);
    if (moved !== undefined) return moved;
    const found = await this.emailLink(request);
    if (found === undefined) return this.deadLink(request, "email confirmation");
    return Ok(confirmEmailPage(this.mounted(request), request.csrf, found.record.email));
  }

  private async confirmEmail(request: Request): Promise<Response> {
    const limited = await this.limited(request);
    if (limited !== undefined) return limited;
    const found = await this.emailLink(request);
    const setEmail = this.settings.users.setEmail?.bind(this.settings.users);
    if (found === undefined || setEmail === undefined || !(await this.settings.tokens.take(found.record.selector, found.verifierHash))) return this.deadLink(request, "email confirmation");
    const changed = await setEmail(found.user.id, found.record.email);
    const session = this.without(request.session, "change-email");
    const paths = this.mounted(request);
    if (changed === "taken") return status(409, saidPage(paths, "This email has an account", `${found.record.email} has an account of its own, so it cannot be the email of yours too. Your email stays as it was.`)).withSession(session);
    if (changed === undefined) return this.deadLink(request, "email confirmation");
    this.mail(found.user.email, "Your email was changed", noticeMail(`The email of your account was changed to ${found.record.email}; mail goes there from now on.`, paths.forgot));
    if (!found.signedIn) return Redirect(paths.login).withSession(session.flash("notice", `The email of your account is now ${found.record.email}: sign in with it.`));
    return Redirect(paths.account).withSession(session.flash("notice", `Your email is now ${found.record.email}.`));
  }

  /**
   * The change-of-email link in the session, when it may be used here: its account's own
   * browser, or one signed in as nobody (the link reached the new address, which is the proof;
   * the change signs nobody in). A browser signed in as another account gets a dead link, so
   * nobody changes someone else's email, nor is told theirs changed, by following a forwarded link.
   */
  private async emailLink(request: Request) {
    const found = await this.userToken(request.session, "change-email");
    if (found === undefined) return undefined;
    const viewer = await this.settings.currentUser(request);
    if (viewer !== undefined && viewer.id !== found.user.id) return undefined;
    return { ...found, signedIn: viewer !== undefined };
  }

  private async signOutEverywhere(request: Request): Promise<Response> {
    const limited = await this.limited(request);
    if (limited !== undefined) return limited;
    const user = await this.settings.currentUser(request);
    if (user === undefined) return this.toLogin(request);
    await this.settings.logoutEverywhere(user.id);
    return Redirect(this.mounted(request).login).withSession(request.session.cleared().flash("notice", "You are signed out everywhere, here too."));
  }

  private async deleteAccount(request: Request): Promise<Response> {
    const checked = await this.withCurrentPassword(request, "delete");
    if (!("user" in checked)) return checked.response;
    try {
      await this.settings.deleteUser(checked.user.id);
    } catch (error) {
      // A row of the app's still names the user (a foreign key with ON DELETE RESTRICT).
      const code = (error as { code?: unknown }).code;
      if (code === "23503" || code === "23001") {
        return this.settingsRefused(request, checked.user, { form: "delete", errors: { form: await this.stillNamed(checked.user.id) } }, 409);
      }
      throw error;
    }
    this.mail(checked.user.email, "Your account was deleted", deletedMail());
    return Redirect(request.href("/")).withSession(request.session.cleared().flash("notice", "Your account is deleted."));
  }

  /**
   * Why an account whose rows still name it was not deleted: the app's own models that hold
   * them ("your tasks and time entries"); rows of a table no owned model has (a foreign key the
   * app wrote by hand) are said plainly, as the site's to remove.
   */
  private async stillNamed(id: number): Promise<string> {
    const models = (await this.settings.ownedRows?.(id)) ?? [];
    if (models.length === 0) return "Your account cannot be deleted while other records of this site still name it: ask the site's team to remove them.";
    return `Your account cannot be deleted while your ${listed(models)} name it: delete them first.`;
  }

  // ——— Helpers ———

  /** The paths as this request reaches them (under its table's prefix). */
  private mounted(request: Request): AccountPaths {
    const p = this.paths;
    const href = (path: string): string => request.href(path);
    return Object.fromEntries(Object.entries(p).map(([name, path]) => [name, href(path)])) as unknown as AccountPaths;
  }

  /** GET with `?token=`: kept in the session, then the same path without it (303). Undefined when there is no token in the URL. */
  private stashed(request: Request, purpose: TokenPurpose, path: string): Response | undefined {
    const token = request.query.get("token");
    if (token === undefined) return undefined;
    return Redirect(request.href(path)).withHeader("referrer-policy", "no-referrer").withSession(withReserved(request.session, STASH[purpose], token.slice(0, 200)));
  }

  private without(session: Session, purpose: TokenPurpose): Session {
    return withoutReserved(session, STASH[purpose]);
  }

  private async token(session: Session, purpose: TokenPurpose) {
    const token = session.get(STASH[purpose]);
    return token === undefined ? undefined : checkToken(this.settings.tokens, token, purpose, this.now());
  }

  /** A token of a user's own: the user still exists, with the email and the session epoch the link was sent for. */
  private async userToken(session: Session, purpose: TokenPurpose) {
    const found = await this.token(session, purpose);
    if (found === undefined) return undefined;
    const user = await this.settings.users.byId(found.record.userId);
    if (user === undefined || !sameSecret(user.sessionEpoch, found.record.epoch)) return undefined;
    if (purpose === "reset-password" && user.email !== found.record.email) return undefined;
    return { ...found, user };
  }

  private deadLink(request: Request, what: string): Response {
    return status(400, deadLinkPage(this.mounted(request), what));
  }

  private toLogin(request: Request): Response {
    return Redirect(`${this.mounted(request).login}?next=${encodeURIComponent(this.mounted(request).account)}`);
  }

  /** 429 when this address sent too many account forms; undefined when it may go on. */
  private async limited(request: Request): Promise<Response | undefined> {
    const wait = await this.formsPerAddress.attempt(limiterKey("account", this.settings.addressOf(request) ?? "unknown"));
    return wait > 0 ? tooMany(wait) : undefined;
  }

  /**
   * The signed-in user when the form's `current` password is theirs; else the answer. Counted
   * first per client address, as every account form is, then per (address, account) as sign-in
   * attempts are, both before the password is checked.
   */
  private async withCurrentPassword(request: Request, form: NonNullable<SettingsState["form"]>): Promise<{ readonly user: U } | { readonly response: Response }> {
    const limited = await this.limited(request);
    if (limited !== undefined) return { response: limited };
    const user = await this.settings.currentUser(request);
    if (user === undefined) return { response: this.toLogin(request) };
    const key = limiterKey("account-password", this.settings.addressOf(request) ?? "unknown", String(user.id));
    const wait = await this.passwordChecks.attempt(key);
    if (wait > 0) return { response: tooMany(wait) };
    if (!(await verifyPassword(request.form.get("current") ?? "", user.passwordHash))) {
      return { response: await this.settingsRefused(request, user, { form, errors: { current: "This is not your current password." }, newEmail: (request.form.get("email") ?? "").slice(0, 255) }) };
    }
    await this.passwordChecks.reset(key);
    return { user };
  }

  private async settingsRefused(
    request: Request,
    user: U,
    state: Omit<SettingsState, "csrf" | "email" | "tokens" | "secondFactor">,
    code = 422,
    tokens: Partial<TokenSection> = {},
    secondFactor: Partial<SecondFactorSection> = {},
  ): Promise<Response> {
    const [section, second, providers, passkeys] = await Promise.all([
      this.tokenSection(user, tokens),
      this.secondFactorSection(request, user, secondFactor),
      this.providersSection(request, user),
      this.settings.passkeys?.section(request, user, request.csrf),
    ]);
    return status(
      code,
      settingsPage(this.mounted(request), { csrf: request.csrf, email: user.email, ...state, ...(section === undefined ? {} : { tokens: section }), ...(second === undefined ? {} : { secondFactor: second }), ...(providers === undefined ? {} : { providers }), ...(passkeys === undefined ? {} : { passkeys }) }),
    );
  }

  /**
   * Sends a mail after the answer, never awaited: the answer does not wait for the mail server
   * nor tell whether one was sent. At most MAILS_PER_ADDRESS to one address an hour (past it,
   * silently none). A failure is told on the app's error stream. The envelope names the stored
   * address itself, so the mailer reads no display name out of it: a row an older check let in
   * (`x<a@d.example>`) is refused by fw/mail, never delivered to `a@d.example`.
   */
  private mail(to: string, subject: string, body: Html): void {
    const report = this.settings.report ?? ((line: string) => process.stderr.write(`${line}\n`));
    void this.mailsPerAddress
      .attempt(limiterKey("mail", to))
      .then((wait) => (wait > 0 ? undefined : this.settings.mailer.send({ to, subject, body, envelope: { to: [to] } })))
      .catch((error: unknown) => report(`fw/auth: the mail "${subject}" could not be sent: ${error instanceof Error ? error.message : String(error)}`));
  }
}

/** What is wrong with a new token's fields, by field; undefined when nothing. */
function tokenProblems(values: { readonly name: string; readonly days: string; readonly scopes: readonly string[] }, known: readonly string[]): Record<string, string> | undefined {
  const errors: Record<string, string> = {};
  if (values.name === "") errors["name"] = "Give the token a name: what it is for.";
  else if (values.name.length > 100 || /\p{Cc}/u.test(values.name)) errors["name"] = "A name is at most 100 characters, without control characters.";
  if (!TOKEN_DAYS.map(String).includes(values.days)) errors["days"] = `Choose how long it lives: ${TOKEN_DAYS.join(", ")} days.`;
  if (values.scopes.length === 0) errors["scope"] = "Give it one scope at least.";
  else if (values.scopes.some((scope) => !known.includes(scope))) errors["scope"] = `Only this site's scopes: ${known.join(", ")}.`;
  return Object.keys(errors).length === 0 ? undefined : errors;
}
