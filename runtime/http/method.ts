/** The HTTP methods fw models (spec 2.18). TRACE, CONNECT and anything else answer 501. */
export const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"] as const;

export type Method = (typeof METHODS)[number];

/**
 * True for the seven methods fw models; the check is case-sensitive, as RFC 9110 says. A switch,
 * not a Set: Node hands over its own interned method names, so GET is one pointer comparison
 * where a Set hashed the name on every request.
 */
export function isMethod(name: string): name is Method {
  switch (name) {
    case "GET":
    case "POST":
    case "PUT":
    case "PATCH":
    case "DELETE":
    case "HEAD":
    case "OPTIONS":
      return true;
    default:
      return false;
  }
}

/** Methods a browser form may ask for through the `_method` field of a POST. */
export const OVERRIDABLE: ReadonlySet<Method> = new Set<Method>(["PUT", "PATCH", "DELETE"]);

/** Methods whose form must return the session's CSRF token (spec 5.8). */
export const UNSAFE: ReadonlySet<Method> = new Set<Method>(["POST", "PUT", "PATCH", "DELETE"]);
