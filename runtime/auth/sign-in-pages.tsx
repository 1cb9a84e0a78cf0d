import type { Html } from "../html/node.js";
import { status, type Response } from "../http/response.js";

/** Where the form sign-in's own routes are, under its mount. */
export interface AuthPaths {
  readonly login: string;
  readonly logout: string;
  /** Undefined when sign-up is switched off. */
  readonly signup: string | undefined;
  /** "Forgot your password?": set when the sign-in has a mailer (the account flows). */
  readonly forgot?: string | undefined;
}

/**
 * The paths as `request` reaches them: under the prefix its table was put under with
 * `Route.under` ("/admin/login"), so the pages' forms and links follow the table.
 */
export function mountedPaths<P extends AuthPaths>(paths: P, request: { href(path: string): string }): P {
  return {
    ...paths,
    login: request.href(paths.login),
    logout: request.href(paths.logout),
    signup: paths.signup === undefined ? undefined : request.href(paths.signup),
    forgot: paths.forgot === undefined ? undefined : request.href(paths.forgot),
  };
}

/** What a sign-in or sign-up form shows: the token, the email typed so far, where to go next, and what went wrong. */
export interface FormState {
  readonly csrf: string;
  readonly email: string;
  readonly next: string;
  /** A message about the whole form (a failed sign-in). */
  readonly problem?: string;
  /** Messages beside one field, by field name (sign-up). */
  readonly errors?: Readonly<Record<string, string>>;
  /** "Sign in with …" buttons: each provider's label and where its form posts. */
  readonly providers?: readonly { readonly label: string; readonly action: string }[];
  /** The passkey form (a button; with it, the email field offers passkeys in its autofill). */
  readonly passkey?: Html;
}

/** The sign-in page: email, password, and the return-to path carried in a hidden field. */
export function loginPage(paths: AuthPaths, state: FormState): Html {
  return (
    <>
      <title>Sign in</title>
      <h1>Sign in</h1>
      {problem(state.problem)}
      <form method="post" action={paths.login} class="fw-form fw-auth" novalidate>
        {hiddenFields(state)}
        {field("login", "email", "Email", { type: "email", autocomplete: state.passkey === undefined ? "username" : "username webauthn", value: state.email }, state.errors)}
        {field("login", "password", "Password", { type: "password", autocomplete: "current-password" }, state.errors)}
        <button type="submit">Sign in</button>
      </form>
      {state.passkey ?? null}
      {(state.providers ?? []).map((provider) => (
        <form method="post" action={provider.action} class="fw-form fw-auth fw-provider">
          {hiddenFields(state)}
          <button type="submit">Sign in with {provider.label}</button>
        </form>
      ))}
      {paths.forgot === undefined ? null : <p><a href={paths.forgot}>Forgot your password?</a></p>}
      {paths.signup === undefined ? null : <p>No account yet? <a href={withNext(paths.signup, state.next)}>Sign up</a></p>}
    </>
  );
}

/** The sign-up page: email and a new password of at least `minLength` characters. */
export function signupPage(paths: AuthPaths & { readonly signup: string }, state: FormState, minLength: number, confirming = false): Html {
  return (
    <>
      <title>Sign up</title>
      <h1>Sign up</h1>
      {confirming ? <p class="fw-auth-confirming">{CONFIRMING}</p> : null}
      {problem(state.problem)}
      <form method="post" action={paths.signup} class="fw-form fw-auth" novalidate>
        {hiddenFields(state)}
        {field("signup", "email", "Email", { type: "email", autocomplete: "username", value: state.email }, state.errors)}
        {field("signup", "password", `Password (at least ${minLength} characters)`, { type: "password", autocomplete: "new-password", minlength: minLength }, state.errors)}
        <button type="submit">Sign up</button>
      </form>
      <p>Have an account? <a href={withNext(paths.login, state.next)}>Sign in</a></p>
    </>
  );
}

/** What the sign-up page says when accounts confirm their email (fw/testing looks for it to follow the link). */
export const CONFIRMING = "We send a link to your email to confirm it: your account is made, and you are signed in, when you follow it.";

/** The page of a 429: what happened and when to try again, never whether the account exists. */
export function tooManyPage(seconds: number): Html {
  const minutes = Math.ceil(seconds / 60);
  return (
    <>
      <title>Too many attempts</title>
      <h1>Too many attempts</h1>
      <p class="fw-auth-error" role="alert">
        Too many attempts. Wait {minutes === 1 ? "a minute" : `${minutes} minutes`}, then try again.
      </p>
    </>
  );
}

/** `path?next=…`, or just `path` when the next page is the home page. */
export function withNext(path: string, next: string): string {
  return next === "/" ? path : `${path}?next=${encodeURIComponent(next)}`;
}

export function problem(text: string | undefined): Html | null {
  return text === undefined ? null : <p class="fw-auth-error" role="alert">{text}</p>;
}

function hiddenFields(state: FormState): Html {
  return (
    <>
      <input type="hidden" name="_csrf" value={state.csrf} />
      {state.next === "/" ? null : <input type="hidden" name="next" value={state.next} />}
    </>
  );
}

type InputAttrs = Readonly<Record<string, string | number>>;

export function field(form: string, name: string, label: string, attrs: InputAttrs, errors: FormState["errors"]): Html {
  const id = `${form}-${name}`;
  const error = errors?.[name];
  return (
    <div class="fw-field">
      <label for={id}>{label}</label>
      <input {...attrs} id={id} name={name} required aria-invalid={error === undefined ? undefined : "true"} aria-describedby={error === undefined ? undefined : `${id}-error`} />
      {error === undefined ? null : <p class="fw-field-error" id={`${id}-error`}>{error}</p>}
    </div>
  );
}

/** 429 with Retry-After (whole seconds, rounded up): a plain status response, not a failure. */
export function tooMany(waitMs: number): Response {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  return status(429, tooManyPage(seconds)).withHeader("retry-after", String(seconds));
}
