import { randomBytes } from "node:crypto";
import type { Request } from "../http/request.js";
import { Ok, Redirect, status, type Response } from "../http/response.js";
import { safeNext } from "./next-path.js";
import { hashPassword, verifyPassword } from "./password.js";
import { limiterKey, PER_ACCOUNT_AND_ADDRESS, PER_ADDRESS, RateLimiter, SIGNUPS_PER_ADDRESS, type AttemptLimiter, type Limit } from "./rate-limit.js";
import { signedInSession } from "./session-user.js";
import { loginPage, mountedPaths, tooMany, type AuthPaths, type FormState } from "./sign-in-pages.js";
import type { SecondFactor } from "./second-factor.js";
import { withoutReserved } from "../http/session.js";
import { NO_PASSWORD, PENDING_LINK_ENTRY, type ProviderSignIn } from "./provider-sign-in.js";
import type { Passkeys } from "./passkeys.js";
import { normalEmail, type UserFields, type Users } from "./users.js";

/** The one answer to a failed sign-in: it never says whether the account exists. */
export const WRONG_CREDENTIALS = "Email or password is wrong.";

/** The limiters of the form sign-in (`formSignIn`'s `limiters` replaces them, e.g. with ones kept in a database). */
export interface SignInLimiters {
  /** Sign-in attempts per (client address, account). */
  readonly perAccountAndAddress: AttemptLimiter;
  /** Failed sign-in attempts per client address, across accounts. */
  readonly perAddress: AttemptLimiter;
  /** Sign-up attempts per client address. */
  readonly signUps: AttemptLimiter;
}

/** What the login routes need. */
export interface LoginSettings<U extends UserFields> {
  readonly users: Users<U>;
  readonly paths: AuthPaths;
  /** The client address limits count by; undefined: "unknown", one shared address. */
  readonly addressOf: (request: Request) => string | undefined;
  readonly limiters: SignInLimiters;
  /** The second factor, when the sign-in has one: a user who turned it on is asked for a code after the password. */
  readonly secondFactor?: SecondFactor<U>;
  /** "Sign in with …": the buttons, and the provider account waiting to be linked after the password. */
  readonly providers?: ProviderSignIn<U>;
  /** Passkeys: their form under the password's. */
  readonly passkeys?: Passkeys<U>;
}

/**
 * The limiters with the documented numbers (PER_ACCOUNT_AND_ADDRESS, PER_ADDRESS,
 * SIGNUPS_PER_ADDRESS): kept by the users store when it offers `attemptLimiter` (fw/db's
 * `SqlUsers`: counts every process shares), else in this process's memory.
 */
export function defaultLimiters(users?: Pick<Users, "attemptLimiter">): SignInLimiters {
  const make = (scope: string, limit: Limit): AttemptLimiter => users?.attemptLimiter?.(scope, limit) ?? new RateLimiter(limit);
  return {
    perAccountAndAddress: make("sign-in/account+address", PER_ACCOUNT_AND_ADDRESS),
    perAddress: make("sign-in/address", PER_ADDRESS),
    signUps: make("sign-up/address", SIGNUPS_PER_ADDRESS),
  };
}

/**
 * `GET /login` and `POST /login`. A wrong email and a wrong password get the same 422 and cost
 * the same time (an unknown email is checked against a dummy hash). Every attempt is counted
 * before the password is checked, per (client address, account) and per address (429 with
 * Retry-After once over); a success takes its attempts back, renews the session and sends the
 * user on with 303, to a path on this site only.
 */
export class Login<U extends UserFields> {
  /** Hashed once, up front, so the first unknown email costs what every other check costs. */
  private readonly dummy = hashPassword(randomBytes(16).toString("base64url"));

  constructor(private readonly settings: LoginSettings<U>) {}

  /** `GET /login`: the form, carrying `?next=` along when it is a path on this site. */
  page(request: Request): Response {
    const next = safeNext(request.query.get("next"));
    return Ok(loginPage(mountedPaths(this.settings.paths, request), { csrf: request.csrf, email: "", next, ...this.others(request, next) }));
  }

  /** `POST /login`: 429 when limited, 422 when wrong, else a renewed session and 303 to next. */
  async submit(request: Request): Promise<Response> {
    const email = request.form.get("email") ?? "";
    const next = safeNext(request.form.get("next"));
    const address = this.settings.addressOf(request) ?? "unknown";
    const { perAccountAndAddress, perAddress } = this.settings.limiters;
    // Hashed, so a megabyte typed as the email costs the limiter 43 characters.
    const account = normalEmail(email.slice(0, 1024));
    const pairKey = limiterKey("login", address, account);
    const addressKey = limiterKey("login", address);
    // Both counted before the password is checked, concurrently or not (Rails' rate_limit).
    const waits = await Promise.all([perAccountAndAddress.attempt(pairKey), perAddress.attempt(addressKey)]);
    const wait = Math.max(...waits);
    if (wait > 0) return tooMany(wait);
    const user = await this.check(account, request.form.get("password") ?? "");
    if (user === undefined) {
      return status(422, loginPage(mountedPaths(this.settings.paths, request), { csrf: request.csrf, email: email.slice(0, 254), next, problem: WRONG_CREDENTIALS, ...this.others(request, next) }));
    }
    await Promise.all([perAccountAndAddress.reset(pairKey), perAddress.refund(addressKey)]);
    // Two-step sign-in: the right password signs nobody in yet; the code page does. A provider
    // account waiting to be linked is not linked on the password alone (link it from /account).
    const second = this.settings.secondFactor;
    if (second !== undefined && (await second.isOn(user.id))) return second.ask(request, user, next);
    // A provider account whose email is this account's waited for the password: linked now.
    const linked = await this.settings.providers?.linkAfterPassword(request.session, user);
    // No next page: the home page of the table the sign-in sits in (under its Route.under prefix).
    const session = signedInSession(withoutReserved(request.session, PENDING_LINK_ENTRY), user);
    return Redirect(next === "/" ? request.href("/") : next).withSession(session.flash("notice", linked ?? "You are signed in."));
  }

  /** The other ways in the page offers: providers' buttons and the passkey form. */
  private others(request: Request, next: string): Pick<FormState, "providers" | "passkey"> {
    const passkey = this.settings.passkeys?.signInForm(request, request.csrf, next);
    return { providers: this.settings.providers?.buttons(request) ?? [], ...(passkey === undefined ? {} : { passkey }) };
  }

  /**
   * The user when the password is theirs; one scrypt verification either way. An email no
   * account can have (empty, too long, with a control character such as U+0000, which a
   * database would refuse to compare) is not looked up.
   */
  private async check(email: string, password: string): Promise<U | undefined> {
    const user = email === "" || email.length > 254 || /\p{Cc}/u.test(email) ? undefined : await this.settings.users.byEmail(email);
    // An account made by a provider has no password (NO_PASSWORD): checked against the dummy, so it takes as long.
    const stored = user === undefined || user.passwordHash === NO_PASSWORD ? await this.dummy : user.passwordHash;
    const matches = await verifyPassword(password, stored);
    return user !== undefined && matches && stored === user.passwordHash ? user : undefined;
  }
}
