/**
 * What a live page's `render` gets beside its state (`LiveView`), and the page's HTML as the first
 * GET answers it: the render inside the live root, then the client's script tag.
 */
import { element, fragment, type Html } from "../html/node.js";
import { liftTitle } from "../html/render.js";
import type { Request } from "../http/request.js";
import { clientUrl } from "./client-file.js";
import { formModelOf, formOf } from "./events.js";
import type { LiveFormProps, LiveView } from "./page.js";
import type { LiveMount } from "./mount.js";

/** The socket a page's root names: `/fw/live/<page id>`. */
export function socketPath(id: string): string {
  return `/fw/live/${id}`;
}

/** The session's CSRF token, which live forms and events carry; none past a failed dispatch. */
function csrfOf(request: Request<unknown>): string {
  return request.hasCsrf ? request.csrf : "";
}

/** The path and query of a request, as the browser shows it. */
export function pathAndQuery(path: string, query: string): string {
  return query === "" ? path : `${path}?${query}`;
}

/**
 * The view of one page request. `path` is the page's path (a live form posts there) and
 * `shown` the path and query as the browser shows them.
 */
export function liveView(mount: LiveMount<unknown>, request: Request<unknown>, shown: string): LiveView {
  const csrf = csrfOf(request);
  return {
    csrf,
    path: shown,
    form(event: string, props: LiveFormProps = {}): Html {
      const model = formModelOf(mount, event);
      if (model === undefined) {
        throw new Error(
          `fw/live: view.form("${event}") in ${mount.source}: no model form is bound to the event "${event}". ` +
            `Declare its handler's payload as FormInput<Model> (events: { ${event}: (state, input: FormInput<Post>) => … }), and rebuild.`,
        );
      }
      return formOf(model).render({
        action: request.path,
        method: "POST",
        csrf,
        ...(props.values === undefined ? {} : { values: props.values }),
        ...(props.errors === undefined ? {} : { errors: props.errors }),
        ...(props.submit === undefined ? {} : { submit: props.submit }),
        events: props.change === undefined ? { submit: event } : { submit: event, change: props.change },
      });
    },
  };
}

/**
 * The page as the first GET (and the no-JavaScript POST) answers it, for the layout to frame:
 * the render inside the live root (which names the socket and the CSRF token events carry),
 * then the client. The render stays a child of what the handler returns, so the layout still
 * lifts its `<title>`.
 */
export function livePage(mount: LiveMount<unknown>, request: Request<unknown>, rendered: Html): Html {
  // The page's own title, as the layout framed it into the document's (`Posts` in `Posts · fw
  // example`): a later render's title takes its place there, the layout's frame kept.
  const title = liftTitle(rendered).title;
  const root = element("div", { "data-fw-live": socketPath(mount.id), "data-fw-csrf": csrfOf(request), "data-fw-title": title }, [rendered]);
  return fragment([root, element("script", { src: clientUrl(), defer: true }, [])]);
}
