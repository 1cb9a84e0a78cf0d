import type { Html } from "../html/node.js";
import { field, problem } from "./sign-in-pages.js";
import { tokenSection, type TokenSection } from "./token-pages.js";
import { secondFactorSection, type SecondFactorSection } from "./second-factor-pages.js";

/** The account flows' own paths, as the request reaches them (under the sign-in's mount and the table's prefix). */
export interface AccountPaths {
  readonly login: string;
  readonly forgot: string;
  readonly reset: string;
  readonly confirm: string;
  readonly account: string;
  readonly changePassword: string;
  readonly changeEmail: string;
  readonly confirmEmail: string;
  readonly signOutEverywhere: string;
  readonly deleteAccount: string;
  readonly createToken: string;
  readonly revokeToken: string;
  readonly beginSecondFactor: string;
  readonly confirmSecondFactor: string;
  readonly disableSecondFactor: string;
}

type Errors = Readonly<Record<string, string>> | undefined;

function csrfField(csrf: string): Html {
  return <input type="hidden" name="_csrf" value={csrf} />;
}

/** "Forgot your password?": one field, one answer whatever the email. */
export function forgotPage(paths: AccountPaths, csrf: string, email: string, errors?: Errors): Html {
  return (
    <>
      <title>Forgot your password?</title>
      <h1>Forgot your password?</h1>
      <p>Give the email of your account: we send it a link to choose a new password. The link works once, for an hour.</p>
      <form method="post" action={paths.forgot} class="fw-form fw-auth" novalidate>
        {csrfField(csrf)}
        {field("forgot", "email", "Email", { type: "email", autocomplete: "username", value: email }, errors)}
        <button type="submit">Send me a link</button>
      </form>
      <p><a href={paths.login}>Back to sign in</a></p>
    </>
  );
}

/** The new-password form a reset link leads to (the token is in the session, not the URL). */
export function resetPage(paths: AccountPaths, csrf: string, email: string, errors?: Errors): Html {
  return (
    <>
      <title>Choose a new password</title>
      <h1>Choose a new password</h1>
      <p>For {email}. Every other session of the account is signed out once it is changed.</p>
      <form method="post" action={paths.reset} class="fw-form fw-auth" novalidate>
        {csrfField(csrf)}
        <input type="text" name="username" value={email} autocomplete="username" hidden />
        {field("reset", "password", "New password", { type: "password", autocomplete: "new-password" }, errors)}
        <button type="submit">Change my password</button>
      </form>
    </>
  );
}

/** The confirmation a sign-up link leads to: one button, which confirms and signs in. */
export function confirmPage(paths: AccountPaths, csrf: string, email: string): Html {
  return (
    <>
      <title>Confirm your email</title>
      <h1>Confirm your email</h1>
      <p>Confirm {email} to finish signing up; you are signed in at once.</p>
      <form method="post" action={paths.confirm} class="fw-form fw-auth">
        {csrfField(csrf)}
        <button type="submit">Confirm and sign in</button>
      </form>
    </>
  );
}

/** The confirmation a change-of-email link leads to. */
export function confirmEmailPage(paths: AccountPaths, csrf: string, email: string): Html {
  return (
    <>
      <title>Confirm your new email</title>
      <h1>Confirm your new email</h1>
      <p>Use {email} for your account from now on.</p>
      <form method="post" action={paths.confirmEmail} class="fw-form fw-auth">
        {csrfField(csrf)}
        <button type="submit">Confirm the new email</button>
      </form>
    </>
  );
}

/** A link that does not work (any reason alike): what to do instead. */
export function deadLinkPage(paths: AccountPaths, what: string): Html {
  return (
    <>
      <title>This link does not work</title>
      <h1>This link does not work</h1>
      <p class="fw-auth-error" role="alert">
        This {what} link does not work: it was used already, it expired, a newer one replaced it, or it was copied wrong.
      </p>
      <p><a href={paths.forgot}>Ask for a new password link</a> or <a href={paths.login}>sign in</a>.</p>
    </>
  );
}

/** The account's sign-in providers: each linked (its email) or not (a Link button posting to its start). */
export interface ProvidersSection {
  readonly unlink: string;
  readonly list: readonly { readonly name: string; readonly label: string; readonly email: string | undefined; readonly action: string }[];
}

function providersSection(section: ProvidersSection, csrf: string): Html {
  return (
    <section id="providers">
      <h2>Sign-in providers</h2>
      <ul>
        {section.list.map((provider) => (
          <li>
            {provider.email === undefined ? (
              <form method="post" action={provider.action} class="fw-inline">
                <input type="hidden" name="_csrf" value={csrf} />
                <input type="hidden" name="link" value="1" />
                {provider.label}: not linked. <button type="submit">Link {provider.label}</button>
              </form>
            ) : (
              <form method="post" action={section.unlink} class="fw-inline">
                <input type="hidden" name="_csrf" value={csrf} />
                <input type="hidden" name="provider" value={provider.name} />
                {provider.label}: linked{provider.email === "" ? "" : ` (${provider.email})`}. <button type="submit">Unlink {provider.label}</button>
              </form>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** What the account settings page shows beside its forms. */
export interface SettingsState {
  readonly csrf: string;
  readonly email: string;
  /** Which form the errors are for. */
  readonly form?: "password" | "email" | "delete" | "token" | "second-factor";
  readonly errors?: Errors;
  readonly newEmail?: string;
  /** The API tokens section, when the sign-in has scopes. */
  readonly tokens?: TokenSection;
  /** The two-step sign-in section. */
  readonly secondFactor?: SecondFactorSection;
  /** The sign-in providers section, when the sign-in has providers. */
  readonly providers?: ProvidersSection;
  /** The passkeys section, rendered. */
  readonly passkeys?: Html;
}

/** Account settings: change password, change email, sign out everywhere, delete the account. */
export function settingsPage(paths: AccountPaths, state: SettingsState): Html {
  const errors = (form: SettingsState["form"]): Errors => (state.form === form ? state.errors : undefined);
  return (
    <>
      <title>Account settings</title>
      <h1>Account settings</h1>
      <p>Signed in as {state.email}.</p>
      <section>
        <h2>Change your password</h2>
        {problem(errors("password")?.["form"])}
        <form method="post" action={paths.changePassword} class="fw-form fw-auth" novalidate>
          {csrfField(state.csrf)}
          <input type="text" name="username" value={state.email} autocomplete="username" hidden />
          {field("change-password", "current", "Current password", { type: "password", autocomplete: "current-password" }, errors("password"))}
          {field("change-password", "password", "New password", { type: "password", autocomplete: "new-password" }, errors("password"))}
          <button type="submit">Change password</button>
        </form>
      </section>
      <section>
        <h2>Change your email</h2>
        <p>We send a link to the new address; the change is made when you follow it.</p>
        {problem(errors("email")?.["form"])}
        <form method="post" action={paths.changeEmail} class="fw-form fw-auth" novalidate>
          {csrfField(state.csrf)}
          {field("change-email", "email", "New email", { type: "email", autocomplete: "email", value: state.newEmail ?? "" }, errors("email"))}
          {field("change-email", "current", "Current password", { type: "password", autocomplete: "current-password" }, errors("email"))}
          <button type="submit">Send a confirmation link</button>
        </form>
      </section>
      {state.passkeys ?? null}
      {state.providers === undefined ? null : providersSection(state.providers, state.csrf)}
      {state.secondFactor === undefined ? null : secondFactorSection(paths, state.csrf, state.email, state.form === "second-factor" ? { ...state.secondFactor, errors: state.errors } : state.secondFactor)}
      {state.tokens === undefined ? null : tokenSection(paths, state.csrf, state.email, state.form === "token" ? { ...state.tokens, errors: state.errors } : state.tokens)}
      <section>
        <h2>Sign out everywhere</h2>
        <p>Ends every session of your account, this one included, on every device.</p>
        <form method="post" action={paths.signOutEverywhere} class="fw-form fw-auth">
          {csrfField(state.csrf)}
          <button type="submit">Sign out everywhere</button>
        </form>
      </section>
      <section>
        <h2>Delete your account</h2>
        <p>Deletes the account for good; it cannot be undone.</p>
        {problem(errors("delete")?.["form"])}
        <form method="post" action={paths.deleteAccount} class="fw-form fw-auth" novalidate>
          {csrfField(state.csrf)}
          {field("delete-account", "current", "Current password", { type: "password", autocomplete: "current-password" }, errors("delete"))}
          <button type="submit">Delete my account</button>
        </form>
      </section>
    </>
  );
}

/** The mail with a link to choose a new password. */
export function resetMail(link: string): Html {
  return (
    <>
      <p>Someone (we hope you) asked to choose a new password for this account.</p>
      <p><a href={link}>Choose a new password</a></p>
      <p>The link works once, for an hour. If you did not ask, ignore this mail: your password stays as it is.</p>
    </>
  );
}

/** The mail that finishes a sign-up. */
export function confirmMail(link: string): Html {
  return (
    <>
      <p>Confirm your email to finish signing up:</p>
      <p><a href={link}>Confirm and sign in</a></p>
      <p>The link works once, for a day. If you did not sign up, ignore this mail: no account is made.</p>
    </>
  );
}

/** The mail to an address that has an account already, when someone signs up with it. */
export function existingAccountMail(login: string, forgot: string): Html {
  return (
    <>
      <p>Someone (we hope you) tried to sign up with this email, which has an account already.</p>
      <p><a href={login}>Sign in</a>, or <a href={forgot}>choose a new password</a> if you forgot it.</p>
      <p>If it was not you, ignore this mail: nothing changed.</p>
    </>
  );
}

/** The mail to a new address, with the link that makes it the account's. */
export function changeEmailMail(link: string): Html {
  return (
    <>
      <p>Confirm this address as the new email of your account:</p>
      <p><a href={link}>Confirm the new email</a></p>
      <p>The link works once, for a day. If you did not ask, ignore this mail.</p>
    </>
  );
}

/** A notice to the account's address: what changed, and what to do if it was not them. */
export function noticeMail(what: string, forgot: string): Html {
  return (
    <>
      <p>{what}</p>
      <p>If this was not you, <a href={forgot}>choose a new password</a> at once.</p>
    </>
  );
}

/** The last mail to an account's address. */
export function deletedMail(): Html {
  return <p>Your account was deleted, as you asked. Nothing of it is kept to sign in with.</p>;
}

/** A page that says why a step did not happen, and where to go. */
export function saidPage(paths: AccountPaths, title: string, text: string): Html {
  return (
    <>
      <title>{title}</title>
      <h1>{title}</h1>
      <p class="fw-auth-error" role="alert">{text}</p>
      <p><a href={paths.login}>Sign in</a></p>
    </>
  );
}
