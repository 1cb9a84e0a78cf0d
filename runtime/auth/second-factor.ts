import { CSRF_ENTRY, type Request } from "../http/request.js";
import { Ok, Redirect, status, type Response } from "../http/response.js";
import { withoutReserved, withReserved, type Session } from "../http/session.js";
import { mintToken } from "../server/csrf.js";
import { sameSecret } from "./account-tokens.js";
import { limiterKey, type AttemptLimiter } from "./rate-limit.js";
import { freshRecoveryCodes, recoveryCodeHash, type SecondFactorStore } from "./second-factor-store.js";
import { codePage } from "./second-factor-pages.js";
import { signedInSession } from "./session-user.js";
import { tooMany } from "./sign-in-pages.js";
import type { UserFields, Users } from "./users.js";

/** The session entry of a sign-in waiting for its code: `<user id> <session epoch> <when the password was right, ms>`. */
export const PENDING_ENTRY = "_2fa";
/** Where that sign-in goes once the code is given. */
const NEXT_ENTRY = "_2fa_next";
/** How long the code may wait after the password: 5 minutes, then the sign-in starts over. */
export const CODE_WAIT_MS = 5 * 60_000;
/** otplib and qrcode, loaded on first use: an app whose users never turn two-step sign-in on does not load them. */
const otp = (): Promise<typeof import("otplib")> => import("otplib");
const qr = (): Promise<typeof import("qrcode")> => import("qrcode");

/** The TOTP step (RFC 6238's default, what every authenticator app uses). */
const PERIOD_S = 30;

/** What a code given for a user's second factor turned out to be. */
export type CodeCheck = "ok" | "wrong" | "used";

/** The limits on codes: per (client address, account) and per address, as sign-in's. */
export interface CodeLimiters {
  readonly perAccountAndAddress: AttemptLimiter;
  readonly perAddress: AttemptLimiter;
}

/**
 * The second factor of the form sign-in (TOTP, RFC 6238, through otplib; QR codes through
 * qrcode): once a user turned it on (`/account`), the right password leaves the session signed in
 * as nobody, waiting for a code (`PENDING_ENTRY`, five minutes); the code page then signs in. A
 * code is accepted once (the store keeps the last time step used, atomically), ±30 s of clock
 * drift; ten single-use recovery codes stand in for a lost phone. Every code given is counted
 * per (address, account) and per address before it is checked, as passwords are.
 */
export class SecondFactor<U extends UserFields> {
  constructor(
    readonly store: SecondFactorStore,
    private readonly users: Users<U>,
    private readonly limiters: CodeLimiters,
    private readonly addressOf: (request: Request) => string | undefined,
    /** The code page's path (`/login/code` under the sign-in's mount). */
    readonly path: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether the user turned the second factor on (a confirmed one: one waiting for its first code does not count). */
  async isOn(userId: number): Promise<boolean> {
    return (await this.store.get(userId))?.enabled === true;
  }

  /** The answer to a right password when the user has a second factor: a session signed in as nobody, waiting for the code, and 303 to the code page. */
  ask(request: Request, user: U, next: string, notice?: string): Response {
    let session = withReserved(request.session.cleared(), CSRF_ENTRY, mintToken());
    if (notice !== undefined) session = session.flash("notice", notice);
    session = withReserved(session, PENDING_ENTRY, `${user.id} ${user.sessionEpoch} ${this.now()}`);
    session = withReserved(session, NEXT_ENTRY, next);
    return Redirect(request.href(this.path)).withSession(session);
  }

  /** `GET /login/code`: the form, while a sign-in waits for its code; else back to sign in. */
  async page(request: Request, loginPath: string): Promise<Response> {
    if ((await this.waiting(request.session)) === undefined) return Redirect(request.href(loginPath));
    return Ok(codePage(request.href(this.path), request.csrf));
  }

  /** `POST /login/code`: counted first, then the code checked; right: signed in, 303 to where it was going. */
  async submit(request: Request, loginPath: string): Promise<Response> {
    const user = await this.waiting(request.session);
    if (user === undefined) return Redirect(request.href(loginPath)).withSession(withoutReserved(request.session, PENDING_ENTRY).flash("notice", "Sign in again: the code was not given within 5 minutes."));
    const limited = await this.limited(request, user.id);
    if (limited !== undefined) return limited;
    const checked = await this.check(user.id, request.form.get("code") ?? "");
    if (checked !== "ok") return status(422, codePage(request.href(this.path), request.csrf, checked === "used" ? "This code was used already: wait for the next one." : "The code is wrong."));
    await this.passed(request, user.id);
    const next = request.session.get(NEXT_ENTRY) ?? "/";
    return Redirect(next === "/" ? request.href("/") : next).withSession(signedInSession(request.session, user).flash("notice", "You are signed in."));
  }

  /**
   * A code for the user's enabled second factor: a TOTP code of now (±30 s) not used before, or
   * an unused recovery code (then used up). Anything else is "wrong"; a right TOTP code given a
   * second time is "used".
   */
  async check(userId: number, typed: string): Promise<CodeCheck> {
    const record = await this.store.get(userId);
    if (record === undefined || !record.enabled) return "wrong";
    const code = typed.replace(/\s/g, "").slice(0, 40);
    if (/^[0-9]{6}$/.test(code)) {
      const step = await this.stepOf(record.secret, code);
      if (step === undefined) return "wrong";
      return (await this.store.useStep(userId, step)) ? "ok" : "used";
    }
    return (await this.store.useRecoveryCode(userId, recoveryCodeHash(code))) ? "ok" : "wrong";
  }

  /** The time step a TOTP code of `secret` belongs to (now, or one step either side), or undefined. */
  async stepOf(secret: string, code: string): Promise<number | undefined> {
    try {
      const result = await (await otp()).verify({ secret, token: code, epoch: Math.floor(this.now() / 1000), epochTolerance: PERIOD_S });
      return result.valid && "timeStep" in result ? result.timeStep : undefined;
    } catch {
      return undefined;
    }
  }

  /** A new secret, kept waiting for its first code, and its QR code for the user's app; undefined when one is on already. */
  async begin(user: U, issuer: string): Promise<{ readonly secret: string; readonly qr: string } | undefined> {
    const secret = (await otp()).generateSecret();
    if (!(await this.store.begin(user.id, secret))) return undefined;
    return { secret, qr: await this.qrOf(secret, user.email, issuer) };
  }

  /** The QR code of a secret (an otpauth:// URI), as a data: URL of a PNG (what CSP's img-src 'self' data: allows). */
  async qrOf(secret: string, email: string, issuer: string): Promise<string> {
    const uri = (await otp()).generateURI({ issuer, label: email, secret });
    return (await qr()).toDataURL(uri, { errorCorrectionLevel: "M", margin: 2, width: 200 });
  }

  /** The waiting secret confirmed by `code`: the ten recovery codes (shown once), or undefined when the code is not the secret's. */
  async confirm(userId: number, code: string): Promise<readonly string[] | undefined> {
    const record = await this.store.get(userId);
    if (record === undefined || record.enabled) return undefined;
    const step = /^[0-9]{6}$/.test(code.trim()) ? await this.stepOf(record.secret, code.trim()) : undefined;
    if (step === undefined) return undefined;
    const codes = freshRecoveryCodes();
    return (await this.store.enable(userId, step, codes.map(recoveryCodeHash))) ? codes : undefined;
  }

  /** 429 when this (address, account) or address gave too many codes; counted before the code is checked. */
  async limited(request: Request, userId: number): Promise<Response | undefined> {
    const address = this.addressOf(request) ?? "unknown";
    const waits = await Promise.all([
      this.limiters.perAccountAndAddress.attempt(limiterKey("second-factor", address, String(userId))),
      this.limiters.perAddress.attempt(limiterKey("second-factor", address)),
    ]);
    const wait = Math.max(...waits);
    return wait > 0 ? tooMany(wait) : undefined;
  }

  /** A right code: its (address, account) count starts over, and it does not count against the address. */
  async passed(request: Request, userId: number): Promise<void> {
    const address = this.addressOf(request) ?? "unknown";
    await Promise.all([this.limiters.perAccountAndAddress.reset(limiterKey("second-factor", address, String(userId))), this.limiters.perAddress.refund(limiterKey("second-factor", address))]);
  }

  /** The user a session's sign-in waits for a code for: within 5 minutes, the user still there with the same session epoch. */
  private async waiting(session: Session): Promise<U | undefined> {
    const [id, epoch, at] = (session.get(PENDING_ENTRY) ?? "").split(" ");
    const since = this.now() - Number(at);
    if (id === undefined || epoch === undefined || !/^[1-9][0-9]{0,14}$/.test(id) || !(since >= 0 && since <= CODE_WAIT_MS)) return undefined;
    const user = await this.users.byId(Number(id));
    return user !== undefined && sameSecret(user.sessionEpoch, epoch) ? user : undefined;
  }
}
