/**
 * How a route writes its typed JSON answers (issue 31, item 6). The build hands it two functions
 * typia wrote for the handler's answer type `T`: `exact`, typia's `equals<T>` (the value is a `T`
 * and has no member `T` does not name), and `typed`, typia's checked typed stringify (it checks
 * the value against `T` and writes `T`'s members alone, in `T`'s order).
 *
 * On Node 20 (V8 11.3) `JSON.stringify` writes a string-heavy answer about three times faster
 * than typia's writer (bench/json.mjs, "the writers alone"), so a value that `exact` accepts and
 * that is made of plain objects and arrays alone goes out through `JSON.stringify`: for such a
 * value both write the same members and values, only their order may differ. Anything else (a
 * member the type leaves out, a `Date`, a class instance, whose getters and `toJSON` the two
 * would write differently, or a value that is not a `T`) goes through `typed`, which prunes,
 * writes or throws (a 500 naming the route file). The check costs microseconds; the writing, on
 * a 28 KB answer, about a millisecond.
 */

/** How deep `plainJson` looks before it gives the value to typia's writer (a cycle ends there, and typia reports it). */
const MAX_DEPTH = 64;

/**
 * Whether `value` is made of what `JSON.stringify` writes as typia does: null, booleans, numbers,
 * strings, arrays, and objects whose prototype is `Object.prototype` or null (no class, so no
 * getter or `toJSON` on a prototype) holding no `toJSON` member of their own.
 */
export function plainJson(value: unknown, depth = 0): boolean {
  // Strings, numbers and booleans first: most of an answer's values (checked on every answer).
  if (typeof value !== "object") return typeof value === "string" || typeof value === "number" || typeof value === "boolean" || (value === undefined && depth > 0);
  if (value === null) return true;
  if (depth >= MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    // A hole or an undefined item: JSON.stringify writes null there, typia's writer does not.
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (item === undefined || !plainJson(item, depth + 1)) return false;
    }
    return true;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return false;
  const object = value as Readonly<Record<string, unknown>>;
  // Object.prototype has no toJSON, so this is the object's own (JSON.stringify would call it).
  if (object["toJSON"] !== undefined) return false;
  for (const key in object) if (!plainJson(object[key], depth + 1)) return false;
  return true;
}

/**
 * A route's JSON writer made of typia's `exact` check and checked `typed` stringify of its answer
 * type (what the build writes into `.fw/routes.ts` for a handler whose return type says what it
 * answers): `JSON.stringify` for a plain value that is exactly a `T`, else `typed`.
 */
export function typedJsonWriter(exact: (value: unknown) => boolean, typed: (value: unknown) => string): (value: unknown) => string {
  return (value) => (plainJson(value) && exact(value) ? JSON.stringify(value) : typed(value));
}
