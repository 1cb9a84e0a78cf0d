import type { Request } from "../http/request.js";
import { Ok, Redirect, status, type Response } from "../http/response.js";
import { safeNext } from "./next-path.js";
import { hashPassword } from "./password.js";
import { signedInSession } from "./session-user.js";
import { signupPage, type AuthPaths } from "./sign-in-pages.js";
import { normalEmail, type UserFields, type Users } from "./users.js";

/** The shortest password sign-up accepts: 12 characters. */
export const MIN_PASSWORD_LENGTH = 12;
/** The longest: 1024 characters (longer is no safer and costs more to hash). */
export const MAX_PASSWORD_LENGTH = 1024;
/** The longest email (RFC 5321's path limit). */
const MAX_EMAIL_LENGTH = 254;

/**
 * `GET /signup` and `POST /signup`: an email and a password make a user, who is signed in at
 * once (the session renewed) and sent on with 303. Problems come back as 422 with the email
 * kept and each message beside its field.
 */
export class Signup<U extends UserFields> {
  constructor(
    private readonly users: Users<U>,
    private readonly paths: AuthPaths & { readonly signup: string },
  ) {}

  /** `GET /signup`: the blank form. */
  page(request: Request): Response {
    const next = safeNext(request.query.get("next"));
    return Ok(signupPage(this.paths, { csrf: request.csrf, email: "", next }, MIN_PASSWORD_LENGTH));
  }

  /** `POST /signup`: 422 with the problems, or a new signed-in user and 303 to next. */
  async submit(request: Request): Promise<Response> {
    const email = (request.form.get("email") ?? "").trim();
    const password = request.form.get("password") ?? "";
    const next = safeNext(request.form.get("next"));
    const errors = problemsOf(email, password);
    if (Object.keys(errors).length > 0) return this.refused(request, email, next, errors);
    const user = await this.users.create(normalEmail(email), await hashPassword(password));
    if (user === undefined) {
      return this.refused(request, email, next, { email: "An account with this email exists already: sign in instead." });
    }
    return Redirect(next).withSession(signedInSession(request.session, user).flash("notice", "Welcome! Your account is ready."));
  }

  private refused(request: Request, email: string, next: string, errors: Record<string, string>): Response {
    return status(422, signupPage(this.paths, { csrf: request.csrf, email, next, errors }, MIN_PASSWORD_LENGTH));
  }
}

function problemsOf(email: string, password: string): Record<string, string> {
  const errors: Record<string, string> = {};
  if (email === "") errors["email"] = "Email is required.";
  else if (email.length > MAX_EMAIL_LENGTH || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) errors["email"] = "Email must be an email address, like ada@example.com.";
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) errors["password"] = `Password must be at least ${MIN_PASSWORD_LENGTH} characters long.`;
  else if (length > MAX_PASSWORD_LENGTH) errors["password"] = `Password must be at most ${MAX_PASSWORD_LENGTH} characters long.`;
  return errors;
}
