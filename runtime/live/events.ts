/**
 * An event's payload and its run: what the socket and the no-JavaScript POST share. A form event
 * (one the build bound to a model in `LiveMount.forms`) hands its handler the model `Form`'s
 * reading of the fields, exactly as a POST to a derived Create reads them; any other event its
 * values by name (the last value of a repeated name wins).
 */
import { Fields } from "../http/fields.js";
import type { Request } from "../http/request.js";
import { EVENT_FIELD } from "../resource/form.js";
import { CSRF_FIELD } from "../server/csrf.js";
import type { FormInput, LiveContext, LiveHandler, LivePage, LiveValues } from "./page.js";
import type { LiveMount } from "./routes.js";
import { publish } from "./topics.js";
import { formOf } from "./view.js";

/** The handler of `name`, when the page has one (own entries only: `constructor` is no event). */
// biome-ignore lint/suspicious/noExplicitAny: a page of any state
export function handlerOf(page: LivePage<any, any, any>, name: string): LiveHandler<unknown, unknown, unknown> | undefined {
  const events = page.spec.events;
  return events !== undefined && Object.hasOwn(events, name) ? events[name] : undefined;
}

/** What an event's handler is given for these pairs, and whether it is a form reading that failed. */
export function payloadOf(mount: LiveMount<unknown>, event: string, pairs: readonly (readonly [string, string])[]): { payload: LiveValues | FormInput<unknown>; refused: boolean } {
  const model = mount.forms !== undefined && Object.hasOwn(mount.forms, event) ? mount.forms[event] : undefined;
  if (model !== undefined) {
    const input = formOf(model).parse(fieldsOf(pairs));
    return { payload: input, refused: !input.ok };
  }
  const values = Object.fromEntries(pairs.filter(([name]) => name !== CSRF_FIELD && name !== EVENT_FIELD));
  return { payload: values, refused: false };
}

function fieldsOf(pairs: readonly (readonly [string, string])[]): Fields {
  const map = new Map<string, string[]>();
  for (const [name, value] of pairs) {
    const values = map.get(name);
    if (values === undefined) map.set(name, [value]);
    else values.push(value);
  }
  return new Fields(map);
}

/** What handlers get beside the state and the payload. */
export function contextOf<C>(mount: LiveMount<C>, request: Request<unknown>): LiveContext<C, unknown> {
  return { request, capabilities: mount.capabilities, publish };
}
