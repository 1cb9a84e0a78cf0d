import { METHODS, type Method } from "../../runtime/http/method.js";
import { Origin, Route, type Handler } from "../../runtime/routing/route.js";

/** A seeded PRNG (mulberry32), so a failing random case can be replayed from its seed. */
export class Random {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  pick<T>(items: readonly T[]): T {
    const item = items[this.int(items.length)];
    if (item === undefined) throw new Error("pick from an empty list");
    return item;
  }
}

/** A handler for routes that are only matched, never served. */
export const notCalled: Handler = () => {
  throw new Error("not called");
};

/**
 * A pattern over a tiny alphabet so that random patterns overlap heavily: literals a/b/c,
 * params and (last only) catch-alls.
 */
export function randomPattern(random: Random, maxLength = 4): string {
  const length = random.int(maxLength + 1);
  const parts: string[] = [];
  for (let i = 0; i < length; i++) {
    const roll = random.next();
    if (roll < 0.55) parts.push(random.pick(["a", "b", "c"]));
    else if (roll < 0.85 || i < length - 1) parts.push(`:p${i}`);
    else parts.push(`*r${i}`);
  }
  return "/" + parts.join("/");
}

/** Request segments over the same alphabet, plus a foreign literal and the empty segment. */
export function randomPath(random: Random, maxLength = 5): string[] {
  const length = random.int(maxLength + 1);
  return Array.from({ length }, () => random.pick(["a", "b", "c", "d", ""]));
}

/** A random table: mostly HTTP routes with random methods and origins, some ws routes. */
export function randomTable(random: Random, size: number): Route[] {
  return Array.from({ length: size }, (_, index) => {
    const path = randomPattern(random);
    const source = `r${index}.ts`;
    if (random.next() < 0.1) return Route.ws(path, { message() {} }, { source });
    const method: Method = random.pick(METHODS);
    const origin = random.next() < 0.5 ? Origin.Handwritten : Origin.Resource;
    return Route.http({ method, path, handler: notCalled, origin, source });
  });
}
