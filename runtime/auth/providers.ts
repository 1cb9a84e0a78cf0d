import type * as Oidc from "openid-client";

/** openid-client, loaded when a provider is first used: an app without providers never loads it. */
const client = (): Promise<typeof Oidc> => import("openid-client");

/** What a provider says of the person who signed in there. */
export interface ProviderIdentity {
  /** The provider's stable id of the account (`sub`; GitHub's numeric id): what a link is kept by, never the email. */
  readonly subject: string;
  readonly email: string | undefined;
  /** Whether the provider says it verified that email. */
  readonly emailVerified: boolean;
}

/** What the flow hands a provider to start: where to come back, and the checks it made up. */
export interface AuthorizationStart {
  readonly redirectUri: string;
  readonly state: string;
  readonly nonce: string;
  readonly codeChallenge: string;
}

/** What the flow hands a provider on the way back: the callback as it arrived, and the checks it kept. */
export interface AuthorizationReturn {
  readonly callbackUrl: URL;
  readonly state: string;
  readonly nonce: string;
  readonly codeVerifier: string;
}

/** Why a provider's answer was not a sign-in. */
export type ProviderFailure =
  /** The provider could not be reached, or answered with what is not a protocol answer. */
  | "unreachable"
  /** The provider refused the exchange, or its answer failed a check (a replayed code, another client's, a wrong nonce, an expired or forged ID token). */
  | "refused";

export class ProviderError extends Error {
  constructor(
    readonly failure: ProviderFailure,
    message: string,
  ) {
    super(message);
    this.name = "ProviderError";
  }
}

/**
 * A sign-in provider ("Sign in with …"): an OpenID Connect issuer (`oidcProvider`) or GitHub
 * (`githubProvider`, OAuth 2 without OIDC). Both go through openid-client: the authorization
 * code flow with PKCE (S256) and `state` (and, for OIDC, `nonce` and the ID token's checks).
 */
export interface SignInProvider {
  /** The path segment and the key links are kept under (`oidc`, `github`). */
  readonly name: string;
  /** What the buttons say: "Sign in with {label}". */
  readonly label: string;
  authorizationUrl(start: AuthorizationStart): Promise<URL>;
  identity(back: AuthorizationReturn): Promise<ProviderIdentity>;
}

/** What `oidcProvider` takes (from the environment: `providersFromEnv`). */
export interface OidcProviderOptions {
  /** Default "oidc". */
  readonly name?: string;
  /** Default: the issuer's host. */
  readonly label?: string;
  /** The issuer's URL; its `/.well-known/openid-configuration` is read on first use. */
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Seconds of clock drift allowed on the ID token's times. Default 5. */
  readonly clockTolerance?: number;
  /** A request to the provider waits this long at most. Default 10 s. */
  readonly timeoutSeconds?: number;
}

/** A name for a path segment: lower-case letters, digits and dashes. */
const NAME = /^[a-z][a-z0-9-]{0,30}$/;

/**
 * A generic OpenID Connect provider (any compliant issuer: Google, Microsoft Entra, Keycloak,
 * Auth0, …): discovery, the code flow with PKCE, `state` and `nonce`, the ID token checked by
 * openid-client (signature, issuer, audience, expiry with `clockTolerance`, nonce). Scopes
 * `openid email`. Plain HTTP is allowed for a loopback issuer only (a provider in a test or dev).
 */
export function oidcProvider(options: OidcProviderOptions): SignInProvider {
  const issuer = new URL(options.issuer);
  const name = options.name ?? "oidc";
  if (!NAME.test(name)) throw new Error(`oidcProvider: the name ${JSON.stringify(name)} must be lower-case letters, digits and dashes (it is a path segment).`);
  if (issuer.protocol !== "https:" && !isLoopback(issuer)) throw new Error(`oidcProvider: the issuer ${issuer.href} must be https (plain http is allowed on a loopback address only).`);
  let config: Promise<Oidc.Configuration> | undefined;
  const configuration = (): Promise<Oidc.Configuration> => {
    config ??= client()
      .then((oidc) =>
        oidc.discovery(issuer, options.clientId, { client_secret: options.clientSecret, [oidc.clockTolerance]: options.clockTolerance ?? 5 }, undefined, {
          timeout: options.timeoutSeconds ?? 10,
          ...(issuer.protocol === "http:" ? { execute: [oidc.allowInsecureRequests] } : {}),
        }),
      )
      .catch((error: unknown) => {
        config = undefined; // asked again next time
        throw new ProviderError("unreachable", `${issuer.href} could not be read (${messageOf(error)})`);
      });
    return config;
  };
  return {
    name,
    label: options.label ?? issuer.host,
    async authorizationUrl(start) {
      return (await client()).buildAuthorizationUrl(await configuration(), {
        redirect_uri: start.redirectUri,
        scope: "openid email",
        state: start.state,
        nonce: start.nonce,
        code_challenge: start.codeChallenge,
        code_challenge_method: "S256",
      });
    },
    async identity(back) {
      const config = await configuration();
      const tokens = await exchange(config, back, true);
      const claims = tokens.claims();
      if (claims === undefined) throw new ProviderError("refused", "the provider sent no ID token");
      if (typeof claims["email"] === "string") return { subject: claims.sub, email: claims["email"], emailVerified: claims["email_verified"] === true };
      // Many issuers put the scope's claims in the UserInfo answer alone: asked for the ID token's subject.
      const info = await userInfo(config, tokens.access_token, claims.sub);
      return { subject: claims.sub, email: typeof info["email"] === "string" ? info["email"] : undefined, emailVerified: info["email_verified"] === true };
    },
  };
}

/** What `githubProvider` takes. */
export interface GithubProviderOptions {
  readonly clientId: string;
  readonly clientSecret: string;
  /** Default "GitHub". */
  readonly label?: string;
  readonly timeoutSeconds?: number;
}

/**
 * GitHub (OAuth 2, no OpenID Connect: no ID token, no nonce), through openid-client's plain
 * OAuth 2 calls: the code flow with PKCE and `state`, then the account from `GET /user` and its
 * verified primary email from `GET /user/emails` (scope `read:user user:email`).
 */
export function githubProvider(options: GithubProviderOptions): SignInProvider {
  const server: Oidc.ServerMetadata = {
    issuer: "https://github.com",
    authorization_endpoint: "https://github.com/login/oauth/authorize",
    token_endpoint: "https://github.com/login/oauth/access_token",
  };
  let made: Promise<Oidc.Configuration> | undefined;
  const configuration = (): Promise<Oidc.Configuration> => {
    made ??= client().then((oidc) => {
      const config = new oidc.Configuration(server, options.clientId, { client_secret: options.clientSecret }, oidc.ClientSecretPost(options.clientSecret));
      config.timeout = options.timeoutSeconds ?? 10;
      return config;
    });
    return made;
  };
  return {
    name: "github",
    label: options.label ?? "GitHub",
    async authorizationUrl(start) {
      return (await client()).buildAuthorizationUrl(await configuration(), { redirect_uri: start.redirectUri, scope: "read:user user:email", state: start.state, code_challenge: start.codeChallenge, code_challenge_method: "S256" });
    },
    async identity(back) {
      const config = await configuration();
      const tokens = await exchange(config, back, false);
      const [user, emails] = await Promise.all([githubJson(config, tokens.access_token, "https://api.github.com/user"), githubJson(config, tokens.access_token, "https://api.github.com/user/emails")]);
      const id = (user as { id?: unknown }).id;
      if (typeof id !== "number" && typeof id !== "string") throw new ProviderError("refused", "GitHub's /user answer has no id");
      const primary = Array.isArray(emails) ? (emails as { email?: unknown; primary?: unknown; verified?: unknown }[]).find((e) => e.primary === true) : undefined;
      return { subject: String(id), email: typeof primary?.email === "string" ? primary.email : undefined, emailVerified: primary?.verified === true };
    },
  };
}

async function userInfo(config: Oidc.Configuration, token: string, subject: string): Promise<Oidc.UserInfoResponse> {
  try {
    return await (await client()).fetchUserInfo(config, token, subject);
  } catch (error) {
    const unreachable = error instanceof TypeError || (error as { name?: unknown }).name === "AbortError";
    throw new ProviderError(unreachable ? "unreachable" : "refused", `its UserInfo answer: ${messageOf(error)}`);
  }
}

async function githubJson(config: Oidc.Configuration, token: string, url: string): Promise<unknown> {
  let response: Response;
  try {
    response = await (await client()).fetchProtectedResource(config, token, new URL(url), "GET", undefined, new Headers({ accept: "application/vnd.github+json" }));
  } catch (error) {
    throw new ProviderError("unreachable", `${url} could not be read (${messageOf(error)})`);
  }
  if (!response.ok) throw new ProviderError("refused", `${url} answered ${response.status}`);
  return response.json();
}

/** The code exchanged for tokens, every check openid-client makes applied; its failures sorted into ours. */
async function exchange(config: Oidc.Configuration, back: AuthorizationReturn, idToken: boolean) {
  try {
    return await (await client()).authorizationCodeGrant(config, back.callbackUrl, {
      pkceCodeVerifier: back.codeVerifier,
      expectedState: back.state,
      ...(idToken ? { expectedNonce: back.nonce, idTokenExpected: true } : {}),
    });
  } catch (error) {
    const unreachable = error instanceof TypeError || (error as { code?: unknown }).code === "OAUTH_TIMEOUT" || (error as { name?: unknown }).name === "AbortError";
    throw new ProviderError(unreachable ? "unreachable" : "refused", messageOf(error));
  }
}

/**
 * The providers the environment configures: `OIDC_ISSUER`, `OIDC_CLIENT_ID`,
 * `OIDC_CLIENT_SECRET` (and `OIDC_LABEL`, "Sign in with …"), and `GITHUB_CLIENT_ID`,
 * `GITHUB_CLIENT_SECRET`. A provider half configured (an id without its secret) fails boot,
 * naming what is missing; none configured is an empty list (the buttons are hidden).
 */
export function providersFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): SignInProvider[] {
  const providers: SignInProvider[] = [];
  const oidcVars = ["OIDC_ISSUER", "OIDC_CLIENT_ID", "OIDC_CLIENT_SECRET"] as const;
  const github = ["GITHUB_CLIENT_ID", "GITHUB_CLIENT_SECRET"] as const;
  const set = (name: string): boolean => (env[name] ?? "") !== "";
  const all = (names: readonly string[], what: string): boolean => {
    if (names.every((n) => !set(n))) return false;
    const missing = names.filter((n) => !set(n));
    if (missing.length > 0) throw new Error(`fw/auth: ${what} sign-in is half configured: set ${missing.join(" and ")} too (or unset ${names.filter(set).join(" and ")}).`);
    return true;
  };
  if (all(oidcVars, "OpenID Connect")) {
    const label = env["OIDC_LABEL"];
    providers.push(oidcProvider({ issuer: env["OIDC_ISSUER"] as string, clientId: env["OIDC_CLIENT_ID"] as string, clientSecret: env["OIDC_CLIENT_SECRET"] as string, ...(label ? { label } : {}) }));
  }
  if (all(github, "GitHub")) providers.push(githubProvider({ clientId: env["GITHUB_CLIENT_ID"] as string, clientSecret: env["GITHUB_CLIENT_SECRET"] as string }));
  return providers;
}

function isLoopback(url: URL): boolean {
  return url.hostname === "localhost" || url.hostname === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(url.hostname);
}

function messageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.slice(0, 200);
}
