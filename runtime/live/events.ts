/**
 * An event's payload and its run: what the socket and the no-JavaScript POST share. A form event
 * (one the build bound to a model in `LiveMount.forms`) hands its handler the model `Form`'s
 * reading of the fields, exactly as a POST to a derived Create reads them; any other event its
 * values by name (the last value of a repeated name wins).
 */
import { Fields } from "../http/fields.js";
import type { Request } from "../http/request.js";
import { EVENT_FIELD, Form } from "../resource/form.js";
import type { ModelSpec } from "../resource/model.js";
import { CSRF_FIELD } from "../server/csrf.js";
import type { FormInput, LiveContext, LiveHandler, LivePage, LiveValues } from "./page.js";
import type { LiveMount } from "./mount.js";
import { publish } from "./topics.js";

/** The handler of `name`, when the page has one (own entries only: `constructor` is no event). */
// biome-ignore lint/suspicious/noExplicitAny: a page of any state
export function handlerOf(page: LivePage<any, any, any, any>, name: string): LiveHandler<unknown, unknown, unknown, unknown> | undefined {
  const events = page.spec.events;
  return events !== undefined && Object.hasOwn(events, name) ? events[name] : undefined;
}

// biome-ignore lint/suspicious/noExplicitAny: one cache holds forms of every model
const forms = new WeakMap<ModelSpec<any>, Form<any>>();

/** The `Form` of a model, made once. */
export function formOf<A>(model: ModelSpec<A>): Form<A> {
  let form = forms.get(model) as Form<A> | undefined;
  if (form === undefined) {
    form = new Form(model);
    forms.set(model, form);
  }
  return form;
}

/** The model a form event's fields are read with (`LiveMount.forms`, own entries only). */
// biome-ignore lint/suspicious/noExplicitAny: a map of forms of different models
export function formModelOf(mount: LiveMount<unknown>, event: string): ModelSpec<any> | undefined {
  return mount.forms !== undefined && Object.hasOwn(mount.forms, event) ? mount.forms[event] : undefined;
}

/** What an event's handler is given for these pairs, and whether it is a form reading that failed. */
export function payloadOf(mount: LiveMount<unknown>, event: string, pairs: readonly (readonly [string, string])[]): { payload: LiveValues | FormInput<unknown>; refused: boolean } {
  const model = formModelOf(mount, event);
  if (model !== undefined) {
    const input = formOf(model).parse(Fields.of(pairs));
    return { payload: input, refused: !input.ok };
  }
  const values = Object.fromEntries(pairs.filter(([name]) => name !== CSRF_FIELD && name !== EVENT_FIELD));
  return { payload: values, refused: false };
}

/** What handlers get beside the state and the payload. */
export function contextOf<C>(mount: LiveMount<C>, request: Request<unknown>, capabilities: C = mount.capabilities): LiveContext<C, unknown, unknown> {
  return { request, capabilities, publish };
}
