/** The HTTP methods fw models (spec 2.18). TRACE, CONNECT and anything else answer 501. */
export const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"] as const;

export type Method = (typeof METHODS)[number];

const modelled: ReadonlySet<string> = new Set(METHODS);

/** True for the seven methods fw models; the check is case-sensitive, as RFC 9110 says. */
export function isMethod(name: string): name is Method {
  return modelled.has(name);
}

/** Methods a browser form may ask for through the `_method` field of a POST. */
export const OVERRIDABLE: ReadonlySet<Method> = new Set<Method>(["PUT", "PATCH", "DELETE"]);

/** Methods whose form must return the session's CSRF token (spec 5.8). */
export const UNSAFE: ReadonlySet<Method> = new Set<Method>(["POST", "PUT", "PATCH", "DELETE"]);
