import { isBareEmail, MAX_EMAIL_LENGTH } from "../http/email-address.js";
import type { Request } from "../http/request.js";
import { Ok, Redirect, status, type Response } from "../http/response.js";
import type { AttemptLimiter } from "./rate-limit.js";
import { limiterKey } from "./rate-limit.js";
import { isCommonPassword } from "./common-passwords.js";
import { safeNext } from "./next-path.js";
import { hashPassword } from "./password.js";
import { weakPasswordProblem } from "./password-strength.js";
import { mountedPaths, signupPage, tooMany, withNext, type AuthPaths } from "./sign-in-pages.js";
import { normalEmail, type UserFields, type Users } from "./users.js";

/** The shortest password sign-up accepts: 12 characters. */
export const MIN_PASSWORD_LENGTH = 12;
/** The longest: 1024 characters (longer is no safer and costs more to hash). */
export const MAX_PASSWORD_LENGTH = 1024;

/** The one answer to a sign-up that passed the checks, when the app has mail (accounts confirm their email). */
export const CHECK_EMAIL = "Check your email: we sent a link to finish signing up. (If this email has an account already, the mail says how to sign in.)";

/**
 * The one answer to a sign-up that passed the checks, whether the email was new (the account is
 * made) or had an account already (nothing changes): sign-up never tells which emails exist.
 */
export const SIGNED_UP = "If this email is new, its account is ready. Sign in with it and your password.";

/**
 * `GET /signup` and `POST /signup`: an email and a password make a user. Problems with the form
 * come back as 422 with the email kept and each message beside its field. A form that passes
 * gets one answer whether or not the email had an account (a 303 to the login page with
 * `SIGNED_UP`), after the same work (one scrypt hash), so the form cannot be used to learn who
 * has an account; the new user then signs in. Attempts are limited per client address.
 */
export class Signup<U extends UserFields> {
  constructor(
    private readonly users: Users<U>,
    private readonly paths: AuthPaths & { readonly signup: string },
    private readonly limiter: AttemptLimiter,
    private readonly addressOf: (request: Request) => string | undefined,
    /** Set when the app has mail: a new account waits for its email to be confirmed. */
    private readonly confirming?: { signUp(request: Request, email: string, passwordHash: string): Promise<void> },
  ) {}

  /** `GET /signup`: the blank form. */
  page(request: Request): Response {
    const next = safeNext(request.query.get("next"));
    return Ok(signupPage(mountedPaths(this.paths, request), { csrf: request.csrf, email: "", next }, MIN_PASSWORD_LENGTH, this.confirming !== undefined));
  }

  /** `POST /signup`: 429 when limited, 422 with the problems, else 303 to sign in (the account made when the email was new). */
  async submit(request: Request): Promise<Response> {
    const address = this.addressOf(request);
    // Counted before any work, so concurrent attempts cannot all pass.
    const wait = address === undefined ? 0 : await this.limiter.attempt(limiterKey("signup", address));
    if (wait > 0) return tooMany(wait);
    const email = (request.form.get("email") ?? "").trim();
    const password = request.form.get("password") ?? "";
    const next = safeNext(request.form.get("next"));
    const errors = await problemsOf(email, password);
    if (Object.keys(errors).length > 0) return this.refused(request, email, next, errors);
    const hash = await hashPassword(password);
    if (this.confirming !== undefined) {
      await this.confirming.signUp(request, normalEmail(email), hash);
      return Redirect(withNext(request.href(this.paths.login), next)).withSession(request.session.flash("notice", CHECK_EMAIL));
    }
    await this.users.create(normalEmail(email), hash);
    return Redirect(withNext(request.href(this.paths.login), next)).withSession(request.session.flash("notice", SIGNED_UP));
  }

  private refused(request: Request, email: string, next: string, errors: Record<string, string>): Response {
    return status(422, signupPage(mountedPaths(this.paths, request), { csrf: request.csrf, email: email.slice(0, MAX_EMAIL_LENGTH + 1), next, errors }, MIN_PASSWORD_LENGTH, this.confirming !== undefined));
  }
}

/**
 * What is wrong with a typed email (trimmed), or undefined: it must be one bare address
 * (`isBareEmail`: no display name, comment, group, list, quotes or brackets) in the form it is
 * stored in (`normalEmail`, whose NFKC turns full-width brackets into real ones), so the address
 * kept is the very mailbox mail goes to, and one mailbox is one account.
 */
export function checkEmail(email: string): string | undefined {
  if (email === "") return "Email is required.";
  if (email.length > MAX_EMAIL_LENGTH || !isBareEmail(normalEmail(email))) return "Email must be an email address, like ada@example.com.";
  return undefined;
}

async function problemsOf(email: string, password: string): Promise<Record<string, string>> {
  const errors: Record<string, string> = {};
  const emailProblem = checkEmail(email);
  if (emailProblem !== undefined) errors["email"] = emailProblem;
  const problem = await newPasswordProblem(password, email);
  if (problem !== undefined) errors["password"] = problem;
  return errors;
}

/** Any control character (C0, DEL, C1): U+0000 to U+001F, U+007F to U+009F. */
const CONTROL = /\p{Cc}/u;

/** Why a new password with a control character is refused. */
const CONTROL_CHARACTER =
  "This password has a control character (such as NUL, a tab or a line break), which cannot be typed at a sign-in form: choose one of letters, digits, spaces and symbols.";

/**
 * What is wrong with `password` as a new password for the account `email`, or undefined: a
 * control character (NUL, a tab, a line break: nobody can type it into a sign-in form, whose
 * password field drops line breaks, so whoever set it could not sign in), too short or too
 * long, one of the most common passwords (or their patterns), or the email (or the part before
 * its "@") itself. Sign-up asks this; ask it too before `changePassword`.
 */
export function passwordProblem(password: string, email: string): string | undefined {
  if (CONTROL.test(password)) return CONTROL_CHARACTER;
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) return `Password must be at least ${MIN_PASSWORD_LENGTH} characters long.`;
  if (length > MAX_PASSWORD_LENGTH) return `Password must be at most ${MAX_PASSWORD_LENGTH} characters long.`;
  if (containsEmail(password, email)) return "Password must not contain your email address: choose something else.";
  if (isCommonPassword(password)) return "This password is one of the most common ones, which attackers try first: choose something less guessable.";
  return undefined;
}

/**
 * What is wrong with `password` as a new password for `email`, or undefined: `passwordProblem`'s
 * checks, then a strength estimate (zxcvbn-ts: common passwords and their variants, keyboard
 * walks such as "qwertyuiopas", repeats, sequences, dates, words of the email), saying why and
 * what would pass. Sign-up, the reset form and the change of password ask this.
 */
export async function newPasswordProblem(password: string, email: string): Promise<string | undefined> {
  return passwordProblem(password, email) ?? (await weakPasswordProblem(password, email));
}

/** The password equals or contains the email, or its local part (when that is 4 characters or more). */
function containsEmail(password: string, email: string): boolean {
  const normal = normalEmail(email);
  if (normal === "") return false;
  const folded = normalEmail(password);
  const local = normal.slice(0, Math.max(0, normal.lastIndexOf("@")));
  return folded.includes(normal) || (local.length >= 4 && folded.includes(local)) || folded === local;
}
