import { randomBytes } from "node:crypto";
import type { Request } from "../http/request.js";
import { Ok, Redirect, status, type Response } from "../http/response.js";
import { safeNext } from "./next-path.js";
import { hashPassword, verifyPassword } from "./password.js";
import { PER_ACCOUNT, PER_ADDRESS, RateLimiter } from "./rate-limit.js";
import { signedInSession } from "./session-user.js";
import { loginPage, tooManyPage, type AuthPaths } from "./sign-in-pages.js";
import { normalEmail, type UserFields, type Users } from "./users.js";

/** The one answer to a failed sign-in: it never says whether the account exists. */
export const WRONG_CREDENTIALS = "Email or password is wrong.";

/** What the login routes need. */
export interface LoginSettings<U extends UserFields> {
  readonly users: Users<U>;
  readonly paths: AuthPaths;
  /** The client address per-address limits count by; undefined skips that limit for the request. */
  readonly addressOf: (request: Request) => string | undefined;
  readonly perAccount: RateLimiter;
  readonly perAddress: RateLimiter;
}

/** Limiters with the documented numbers: 5 failures per account, 20 per address, each per 15 minutes. */
export function defaultLimiters(): Pick<LoginSettings<UserFields>, "perAccount" | "perAddress"> {
  return { perAccount: new RateLimiter(PER_ACCOUNT), perAddress: new RateLimiter(PER_ADDRESS) };
}

/**
 * `GET /login` and `POST /login`. A wrong email and a wrong password get the same 422 and cost
 * the same time (an unknown email is checked against a dummy hash); failures are limited per
 * account and per client address (429 with Retry-After); success renews the session and sends
 * the user back with 303, to a path on this site only.
 */
export class Login<U extends UserFields> {
  /** Hashed once, up front, so the first unknown email costs what every other check costs. */
  private readonly dummy = hashPassword(randomBytes(16).toString("base64url"));

  constructor(private readonly settings: LoginSettings<U>) {}

  /** `GET /login`: the form, carrying `?next=` along when it is a path on this site. */
  page(request: Request): Response {
    const next = safeNext(request.query.get("next"));
    return Ok(loginPage(this.settings.paths, { csrf: request.csrf, email: "", next }));
  }

  /** `POST /login`: 429 when limited, 422 when wrong, else a renewed session and 303 to next. */
  async submit(request: Request): Promise<Response> {
    const email = request.form.get("email") ?? "";
    const next = safeNext(request.form.get("next"));
    const account = normalEmail(email);
    const address = this.settings.addressOf(request);
    const wait = this.waitFor(account, address);
    if (wait > 0) return tooMany(wait);
    const user = await this.check(account, request.form.get("password") ?? "");
    if (user === undefined) {
      this.settings.perAccount.fail(account);
      if (address !== undefined) this.settings.perAddress.fail(address);
      return status(422, loginPage(this.settings.paths, { csrf: request.csrf, email, next, problem: WRONG_CREDENTIALS }));
    }
    this.settings.perAccount.reset(account);
    return Redirect(next).withSession(signedInSession(request.session, user).flash("notice", "You are signed in."));
  }

  private waitFor(account: string, address: string | undefined): number {
    const byAccount = this.settings.perAccount.retryAfter(account);
    const byAddress = address === undefined ? 0 : this.settings.perAddress.retryAfter(address);
    return Math.max(byAccount, byAddress);
  }

  /** The user when the password is theirs; one scrypt verification either way. */
  private async check(email: string, password: string): Promise<U | undefined> {
    const user = email === "" ? undefined : await this.settings.users.byEmail(email);
    const matches = await verifyPassword(password, user?.passwordHash ?? (await this.dummy));
    return user !== undefined && matches ? user : undefined;
  }
}

/** 429 with Retry-After (whole seconds, rounded up): a plain status response, not a failure. */
function tooMany(waitMs: number): Response {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  return status(429, tooManyPage(seconds)).withHeader("retry-after", String(seconds));
}
