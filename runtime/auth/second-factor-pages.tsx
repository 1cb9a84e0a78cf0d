import type { Html } from "../html/node.js";
import { field, problem } from "./sign-in-pages.js";

/** The page that asks for a code after the password (the session is not signed in before it is given). */
export function codePage(action: string, csrf: string, error?: string): Html {
  return (
    <>
      <title>Enter a code</title>
      <h1>Enter a code</h1>
      <p>Your password is right. Enter the 6-digit code your authenticator app shows, or one of your recovery codes.</p>
      {problem(error)}
      <form method="post" action={action} class="fw-form fw-auth" novalidate>
        <input type="hidden" name="_csrf" value={csrf} />
        {field("second-factor", "code", "Code", { type: "text", inputmode: "numeric", autocomplete: "one-time-code", maxlength: 20, autofocus: "" }, undefined)}
        <button type="submit">Sign in</button>
      </form>
    </>
  );
}

/** Where the settings' second-factor forms post. */
export interface SecondFactorPaths {
  readonly beginSecondFactor: string;
  readonly confirmSecondFactor: string;
  readonly disableSecondFactor: string;
}

/** What the settings page shows of the second factor. */
export interface SecondFactorSection {
  readonly enabled: boolean;
  /** Unused recovery codes left (when enabled). */
  readonly codesLeft: number;
  /** Being turned on: the QR code (a data: URL of a PNG), the secret as text, and the URI. */
  readonly setup?: { readonly qr: string; readonly secret: string };
  /** Just turned on: the recovery codes, shown this once. */
  readonly recoveryCodes?: readonly string[];
  readonly errors?: Readonly<Record<string, string>> | undefined;
}

/** "Two-step sign-in" on the account page. */
export function secondFactorSection(paths: SecondFactorPaths, csrf: string, email: string, section: SecondFactorSection): Html {
  const errors = section.errors;
  return (
    <section id="second-factor">
      <h2>Two-step sign-in</h2>
      {section.recoveryCodes === undefined ? null : (
        <div class="fw-recovery-codes" role="status">
          <p>Two-step sign-in is on. Keep these recovery codes somewhere safe: each signs you in once without your phone. They are not shown again.</p>
          <ul>
            {section.recoveryCodes.map((code) => (
              <li>
                <code>{code}</code>
              </li>
            ))}
          </ul>
        </div>
      )}
      {section.setup !== undefined ? (
        <>
          <p>Scan this QR code with your authenticator app (or type the key), then enter the code it shows.</p>
          <p>
            <img class="fw-qr" src={section.setup.qr} alt="QR code of your two-step sign-in key" width="200" height="200" />
          </p>
          <p>
            Key: <code class="fw-totp-secret">{section.setup.secret}</code>
          </p>
          {problem(errors?.["form"])}
          <form method="post" action={paths.confirmSecondFactor} class="fw-form fw-auth" novalidate>
            <input type="hidden" name="_csrf" value={csrf} />
            {field("confirm-second-factor", "code", "Code from the app", { type: "text", inputmode: "numeric", autocomplete: "one-time-code", maxlength: 6 }, errors)}
            <button type="submit">Turn on two-step sign-in</button>
          </form>
        </>
      ) : section.enabled ? (
        <>
          <p>
            On: signing in asks for a code from your authenticator app after your password. {section.codesLeft} recovery {section.codesLeft === 1 ? "code" : "codes"} left.
          </p>
          {problem(errors?.["form"])}
          <form method="post" action={paths.disableSecondFactor} class="fw-form fw-auth" novalidate>
            <input type="hidden" name="_csrf" value={csrf} />
            {field("disable-second-factor", "code", "Code from the app (or a recovery code)", { type: "text", autocomplete: "one-time-code", maxlength: 20 }, errors)}
            <button type="submit">Turn off two-step sign-in</button>
          </form>
        </>
      ) : (
        <>
          <p>Off. With it on, signing in asks for a code from an authenticator app after your password.</p>
          {problem(errors?.["form"])}
          <form method="post" action={paths.beginSecondFactor} class="fw-form fw-auth" novalidate>
            <input type="hidden" name="_csrf" value={csrf} />
            <input type="text" name="username" value={email} autocomplete="username" hidden />
            {field("begin-second-factor", "current", "Current password", { type: "password", autocomplete: "current-password" }, errors)}
            <button type="submit">Set up two-step sign-in</button>
          </form>
        </>
      )}
    </section>
  );
}
