import type { Request } from "../http/request.js";
import { element, type Child, type Html } from "../html/node.js";
import { isDocument, liftTitle, renderDocument } from "../html/render.js";

/** What the layout is given to frame one page (spec 2.17). */
export interface LayoutProps {
  /** Plain text of the first `<title>` the route wrote (lifted out of `content`), if any. */
  readonly title: string | undefined;
  /** The page's content, without its title. */
  readonly content: Child;
  /**
   * The request as it arrived: the session as read, not what the reply does to it. A first
   * visit, an error page and an unmatched request carry no CSRF token (`request.hasCsrf`).
   */
  readonly request: Request<unknown>;
}

/**
 * The one frame every HTML reply comes back in; it returns the document from `<html>` down. It
 * may answer later (a Promise), to read what it shows from a store: the signed-in user's email,
 * say (`await auth.userOf(request)`, fw/auth).
 */
export type Layout = (props: LayoutProps) => Html | Promise<Html>;

/** The frame used when the application names none. */
export const defaultLayout: Layout = ({ title, content }) =>
  element("html", { lang: "en" }, [
    element("head", {}, [
      element("meta", { charset: "utf-8" }, []),
      element("meta", { name: "viewport", content: "width=device-width, initial-scale=1" }, []),
      element("title", {}, [title ?? "fw"]),
    ]),
    element("body", {}, [content]),
  ]);

/**
 * Renders page content to a whole document: a route's own `<html>` is sent as written; anything
 * else goes through the layout, whose result must itself be an `<html>` element. The doctype is
 * prepended either way. Throws (or, for a layout that answers later, rejects) when the layout
 * does (the caller answers a plain 500). Synchronous while the layout is.
 */
export function renderPage(html: Html, layout: Layout, request: Request<unknown>): string | Promise<string> {
  if (isDocument(html)) return renderDocument(html);
  const { title, content } = liftTitle(html);
  const framed = layout({ title, content, request });
  return framed instanceof Promise ? framed.then(wholeDocument) : wholeDocument(framed);
}

function wholeDocument(framed: Html): string {
  if (!isDocument(framed)) {
    throw new Error("The layout must return an <html> element: it frames whole documents.");
  }
  return renderDocument(framed);
}
