import type { Method } from "./method.js";

/**
 * The sealed failure set of spec section 7. A failure carries no status and no headers: the
 * one mapping to a status is `statusOf`, an exhaustive switch at the boundary. Handlers throw
 * these to reach the framework's own statuses (there is no NotFound response constructor).
 */
abstract class FailureBase extends Error {
  abstract readonly kind: string;
}

/** 404: throw it when the address names nothing (an unknown id); `detail` is shown on the problem page. */
export class NotFound extends FailureBase {
  readonly kind = "NotFound" as const;
  constructor(readonly detail = "Nothing is served at this address.") {
    super(detail);
  }
}

/** 405 with `Allow`: the path exists, but not for this method. fw answers it itself when no route matches the method. */
export class MethodNotAllowed extends FailureBase {
  readonly kind = "MethodNotAllowed" as const;
  /** The methods the matched path does accept: they build the mandatory `Allow` header. */
  constructor(readonly allowed: readonly Method[]) {
    super(`This address accepts ${allowed.join(", ")} only.`);
  }
  get detail(): string {
    return this.message;
  }
}

/** 501: a method fw does not serve (TRACE, CONNECT, one it does not model). */
export class NotImplemented extends FailureBase {
  readonly kind = "NotImplemented" as const;
  constructor(readonly detail = "This request method is not supported.") {
    super(detail);
  }
}

/** 400: the request cannot be read (a path parameter that does not decode, a malformed body); `detail` says what was wrong. */
export class BadRequest extends FailureBase {
  readonly kind = "BadRequest" as const;
  constructor(readonly detail = "The request could not be read.") {
    super(detail);
  }
}

/** 413: the body is larger than `maxBodySize`; fw throws it before the handler runs. */
export class PayloadTooLarge extends FailureBase {
  readonly kind = "PayloadTooLarge" as const;
  constructor(readonly limit: number) {
    super(`The request body is larger than the ${limit}-byte limit.`);
  }
  get detail(): string {
    return this.message;
  }
}

/** 403: the request is understood and refused (a missing CSRF token, someone else's row, a guard's refusal). */
export class Forbidden extends FailureBase {
  readonly kind = "Forbidden" as const;
  /** `detail` says which kind of refusal it was (spec 5.6): there is no 401. */
  constructor(readonly detail = "This request is refused.") {
    super(detail);
  }
}

/**
 * 409: the request cannot be applied to the resource as it is now (a row changed since it was
 * read, a row other rows still point at); sending it again as it is will fail again. fw answers
 * a store's `Conflict` and `StillReferenced` that no handler caught with it.
 */
export class StateConflict extends FailureBase {
  readonly kind = "StateConflict" as const;
  constructor(readonly detail = "This request conflicts with the current state of what it changes.") {
    super(detail);
  }
}

/**
 * 422: the request was read, but what it asks to store cannot be (a reference to no row, a
 * value a unique field already holds). fw answers a store's `MissingReference` and
 * `DuplicateValue` that no handler caught with it; derived forms answer these beside the field.
 */
export class UnprocessableContent extends FailureBase {
  readonly kind = "UnprocessableContent" as const;
  constructor(readonly detail = "The request could not be applied as sent.") {
    super(detail);
  }
}

/**
 * A service the request needs (the database) cannot be reached right now: 503 with
 * `Retry-After`. Nothing is wrong with the request, so the client may send it again; the
 * server goes on serving.
 */
export class ServiceUnavailable extends FailureBase {
  readonly kind = "ServiceUnavailable" as const;
  /**
   * @param retryAfter seconds the client should wait (the `Retry-After` header).
   * @param cause what failed, for the log; never shown in production.
   */
  constructor(
    readonly detail = "A service this page needs is unavailable right now. Please try again shortly.",
    readonly retryAfter = 5,
    override readonly cause?: unknown,
  ) {
    super(detail);
  }
}

/** 500: what any other thrown value becomes at the boundary; production shows only an incident id, never the cause. */
export class InternalServerError extends FailureBase {
  readonly kind = "InternalServerError" as const;
  readonly detail = "The server could not complete this request.";
  /** The cause is read by both the logger and (in dev only) the renderer. */
  constructor(override readonly cause: unknown) {
    super("Internal server error");
  }
}

/** The closed union: `statusOf` must name every case, with no default. */
export type HttpFailure =
  | NotFound
  | MethodNotAllowed
  | NotImplemented
  | BadRequest
  | PayloadTooLarge
  | Forbidden
  | StateConflict
  | UnprocessableContent
  | ServiceUnavailable
  | InternalServerError;

export function isHttpFailure(value: unknown): value is HttpFailure {
  return (
    value instanceof NotFound ||
    value instanceof MethodNotAllowed ||
    value instanceof NotImplemented ||
    value instanceof BadRequest ||
    value instanceof PayloadTooLarge ||
    value instanceof Forbidden ||
    value instanceof StateConflict ||
    value instanceof UnprocessableContent ||
    value instanceof ServiceUnavailable ||
    value instanceof InternalServerError
  );
}

/**
 * The one mapping from failure to status: no default, so a case added to the union without a
 * status here fails the build ("not all code paths return a value").
 */
export function statusOf(failure: HttpFailure): number {
  switch (failure.kind) {
    case "NotFound":
      return 404;
    case "MethodNotAllowed":
      return 405;
    case "NotImplemented":
      return 501;
    case "BadRequest":
      return 400;
    case "PayloadTooLarge":
      return 413;
    case "Forbidden":
      return 403;
    case "StateConflict":
      return 409;
    case "UnprocessableContent":
      return 422;
    case "ServiceUnavailable":
      return 503;
    case "InternalServerError":
      return 500;
  }
}

/** Whatever reached the boundary, as a member of the sealed set. */
export function asFailure(thrown: unknown): HttpFailure {
  return isHttpFailure(thrown) ? thrown : new InternalServerError(thrown);
}
