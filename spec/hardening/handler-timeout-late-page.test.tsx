import { afterAll, beforeAll, expect, it } from "vitest";
import { Ok, Route, RouteTable, type Layout } from "../../runtime/index.js";
import { serve, type Served } from "../support/serve.js";

/**
 * A page whose handler settles after `handlerTimeoutMs` has already been answered with a 500: what
 * it settles with later is dropped before anything else is done with it — the layout is not run
 * for it (the deadline and the page's continuation share one reaction: runtime/server/dispatch.ts).
 */
const after = <T,>(ms: number, value: () => T): Promise<T> => new Promise((resolve) => setTimeout(() => resolve(value()), ms));

const laidOut: string[] = [];
const layout: Layout = ({ title, content }) => {
  laidOut.push(title ?? "");
  return (
    <html>
      <head>
        <title>{title}</title>
      </head>
      <body>{content}</body>
    </html>
  );
};

let app: Served;
beforeAll(async () => {
  app = await serve({
    handlerTimeoutMs: 100,
    layout,
    routes: RouteTable.of(
      Route.get("/late", () =>
        after(300, () =>
          Ok(
            <>
              <title>Late page</title>
              <p>late</p>
            </>,
          ),
        ),
      ),
      Route.get("/in-time", () =>
        after(10, () =>
          Ok(
            <>
              <title>In time</title>
              <p>in time</p>
            </>,
          ),
        ),
      ),
    ),
  });
});
afterAll(() => app.close());

it("a page that settles after the deadline is not laid out; one in time is", async () => {
  expect((await app.get("/late")).status).toBe(500);
  await after(400, () => undefined); // the late page has settled by now
  expect(laidOut).not.toContain("Late page");
  const inTime = await app.get("/in-time");
  expect(inTime.status).toBe(200);
  expect(await inTime.text()).toContain("<p>in time</p>");
  expect(laidOut).toContain("In time");
});
