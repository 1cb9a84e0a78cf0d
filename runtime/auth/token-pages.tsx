import type { Html } from "../html/node.js";
import type { ApiTokenRecord } from "./api-token-store.js";
import { field, problem } from "./sign-in-pages.js";

/** The lifetimes a new token may be given, in days (the form's choices; nothing lives for ever). */
export const TOKEN_DAYS: readonly number[] = [7, 30, 90, 365];

/** What the account page's token section shows. */
export interface TokenSection {
  /** The app's scopes: name and what it lets a token do. */
  readonly scopes: readonly (readonly [string, string])[];
  /** The user's tokens, newest first. */
  readonly list: readonly ApiTokenRecord[];
  /** A token just created: shown this once, never again. */
  readonly created?: { readonly name: string; readonly token: string };
  /** The create form's values and errors, when it was refused. */
  readonly values?: { readonly name: string; readonly days: string; readonly scopes: readonly string[] };
  readonly errors?: Readonly<Record<string, string>> | undefined;
  readonly now: number;
}

/** Where the token forms post. */
export interface TokenPaths {
  readonly createToken: string;
  readonly revokeToken: string;
}

/** "API tokens" on the account page: the one just made (shown once), the list with last use and Revoke, and the form. */
export function tokenSection(paths: TokenPaths, csrf: string, email: string, section: TokenSection): Html {
  const errors = section.errors;
  const chosen = new Set(section.values?.scopes ?? []);
  return (
    <section id="api-tokens">
      <h2>API tokens</h2>
      <p>A token lets a program call this site's API as you, with the scopes you give it, until it expires or you revoke it. It never signs in a browser.</p>
      {section.created === undefined ? null : (
        <div class="fw-token-created" role="status">
          <p>
            Your new token <strong>{section.created.name}</strong>. Copy it now: it is not shown again.
          </p>
          <p>
            <code class="fw-token">{section.created.token}</code>
          </p>
        </div>
      )}
      {tokenList(paths, csrf, section)}
      <h3>Create a token</h3>
      {problem(errors?.["form"])}
      <form method="post" action={paths.createToken} class="fw-form fw-auth" novalidate>
        <input type="hidden" name="_csrf" value={csrf} />
        <input type="text" name="username" value={email} autocomplete="username" hidden />
        {field("create-token", "name", "Name (what it is for)", { type: "text", maxlength: 100, value: section.values?.name ?? "" }, errors)}
        <div class="fw-field">
          <label for="create-token-days">Expires after</label>
          <select id="create-token-days" name="days">
            {TOKEN_DAYS.map((days) => (
              <option value={String(days)} selected={(section.values?.days ?? "30") === String(days)}>
                {days} days
              </option>
            ))}
          </select>
          {errors?.["days"] === undefined ? null : <p class="fw-field-error">{errors["days"]}</p>}
        </div>
        <fieldset class="fw-field">
          <legend>Scopes</legend>
          {section.scopes.map(([name, description]) => (
            <label>
              <input type="checkbox" name="scope" value={name} checked={chosen.has(name)} /> <code>{name}</code>: {description}
            </label>
          ))}
          {errors?.["scope"] === undefined ? null : <p class="fw-field-error">{errors["scope"]}</p>}
        </fieldset>
        {field("create-token", "current", "Current password", { type: "password", autocomplete: "current-password" }, errors)}
        <button type="submit">Create token</button>
      </form>
    </section>
  );
}

function tokenList(paths: TokenPaths, csrf: string, section: TokenSection): Html {
  if (section.list.length === 0) return <p>You have no tokens.</p>;
  return (
    <table class="fw-tokens">
      <thead>
        <tr>
          <th>Name</th>
          <th>Scopes</th>
          <th>Created</th>
          <th>Expires</th>
          <th>Last used</th>
          <th></th>
        </tr>
      </thead>
      <tbody>
        {section.list.map((token) => (
          <tr>
            <td>{token.name}</td>
            <td>{token.scopes.join(", ")}</td>
            <td>{day(token.createdAt)}</td>
            <td>{token.expiresAt <= section.now ? `expired ${day(token.expiresAt)}` : day(token.expiresAt)}</td>
            <td>{token.lastUsedAt === undefined ? "never" : minute(token.lastUsedAt)}</td>
            <td>
              <form method="post" action={paths.revokeToken} class="fw-inline">
                <input type="hidden" name="_csrf" value={csrf} />
                <input type="hidden" name="token" value={token.selector} />
                <button type="submit">Revoke {token.name}</button>
              </form>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function day(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function minute(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** The mail to an account's address when a token was made for it. */
export function tokenCreatedMail(name: string, scopes: readonly string[], account: string): Html {
  return (
    <>
      <p>
        An API token named "{name}" was created for your account, with the scopes {scopes.join(", ")}.
      </p>
      <p>
        If this was not you, <a href={account}>revoke it</a> and choose a new password at once.
      </p>
    </>
  );
}
