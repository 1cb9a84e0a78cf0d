/**
 * fw/auth — the optional sign-in module (spec 2.12, 2.13, section 5). The HTTP core never
 * imports it: an app without it has no login page. It offers:
 *
 * - `Guarded` (with `Guarded.public`) and `Owned`: the declarations pages and models make;
 * - `formSignIn`: login, logout and sign-up pages over a signed session, and the guards made from it;
 * - `apiKey`: a guard for API routes (`Authorization: Bearer <key>`), service keys fixed at boot;
 * - per-user API tokens with the app's scopes (`formSignIn({ …, scopes })`, `auth.token({ scope })`), made on `/account`;
 * - users (`Users`, `InMemoryUsers`, `seedUser`) and salted scrypt password hashes;
 * - sessions that end: the guard asks the users store once per request, and `logoutEverywhere`,
 *   `changePassword`, `deleteUser` and sign-out end sessions (and close their sockets in every process).
 */
export { Guarded, type GuardedInit } from "./guarded.js";
export { Owned } from "./owned.js";
export { Policy, type Can, type PolicyInit } from "./policy.js";
export { formSignIn, FormSignIn, SIGN_IN_MAX_AGE_S, type FormSignInOptions, type RoleOf } from "./form-sign-in.js";
export { apiKey, ApiKeyGuard, type ApiKeyOptions } from "./api-key.js";
export { InMemoryUsers, MAX_REVOKED_PER_USER, normalEmail, seedUser, canonicalRoles, ROLE_PATTERN, type UserFields, type Users } from "./users.js";
export { ApiTokens, TokenGuard, MAX_TOKENS_PER_USER, TOKEN_RECHECK_MS, MAX_REMEMBERED_TOKENS, TOKEN_REVOCATIONS_ROOM, type Scopes } from "./api-tokens.js";
export { InMemoryApiTokens, API_TOKEN_PREFIX, LAST_USE_RESOLUTION_MS, type ApiTokenRecord, type ApiTokenStore } from "./api-token-store.js";
export { TOKEN_DAYS } from "./token-pages.js";
export { oidcProvider, githubProvider, providersFromEnv, ProviderError, type SignInProvider, type ProviderIdentity, type OidcProviderOptions, type GithubProviderOptions, type AuthorizationStart, type AuthorizationReturn, type ProviderFailure } from "./providers.js";
export { NO_PASSWORD } from "./provider-sign-in.js";
export { InMemoryIdentities, type IdentityRecord, type IdentityStore } from "./identity-store.js";
export { Passkeys, PASSKEYS_SCRIPT_PATH, MAX_PASSKEYS_PER_USER } from "./passkeys.js";
export { InMemoryPasskeys, type PasskeyRecord, type PasskeyStore } from "./passkey-store.js";
export { SecondFactor, CODE_WAIT_MS, type CodeCheck, type CodeLimiters } from "./second-factor.js";
export { InMemorySecondFactors, RECOVERY_CODES, type SecondFactorRecord, type SecondFactorStore } from "./second-factor-store.js";
export { hashPassword, verifyPassword, SCRYPT_COST } from "./password.js";
export { safeNext, MAX_NEXT_LENGTH } from "./next-path.js";
export {
  RateLimiter,
  limiterKey,
  PER_ACCOUNT_AND_ADDRESS,
  PER_ADDRESS,
  SIGNUPS_PER_ADDRESS,
  MAX_KEYS,
  MAX_KEY_PART,
  type AttemptLimiter,
  type Limit,
} from "./rate-limit.js";
export type { SignedIn } from "./session-user.js";
export { MIN_PASSWORD_LENGTH, MAX_PASSWORD_LENGTH, SIGNED_UP, CHECK_EMAIL, passwordProblem, newPasswordProblem } from "./signup.js";
export { isBareEmail } from "../http/email-address.js";
export { MIN_PASSWORD_SCORE, weakPasswordProblem } from "./password-strength.js";
export {
  Accounts,
  RESET_SENT,
  RESET_LINK_TTL_MS,
  CONFIRM_LINK_TTL_MS,
  EMAIL_LINK_TTL_MS,
  ACCOUNT_FORMS_PER_ADDRESS,
  MAILS_PER_ADDRESS,
  PASSWORD_CHECKS,
  type AccountMailer,
} from "./accounts.js";
export { InMemoryTokens, type AccountTokens, type TokenRecord, type TokenPurpose } from "./account-tokens.js";
export { isCommonPassword } from "./common-passwords.js";
export { WRONG_CREDENTIALS, type SignInLimiters } from "./login.js";
export { SIGNED_OUT_CODE } from "./live-sockets.js";
export { CONFIRMING, type AuthPaths } from "./sign-in-pages.js";
export { MEMBER_ROLES, type Team, type MemberRole, type Membership, type Member, type Invitation, type MemberChange, type Accepted, type TeamStore } from "./teams.js";
export { INVITATION_TTL_MS, MAX_WAITING_INVITATIONS, MAX_TEAMS_PER_USER, MAX_TEAM_NAME_LENGTH } from "./team-flows.js";
