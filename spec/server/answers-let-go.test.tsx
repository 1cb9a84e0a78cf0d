// What the server and the dispatcher let go of once an answer is written (bench/FINDINGS.md 29):
// under load the promises that carried a page are often in V8's old generation by the time they
// settle, and keep what they settled with until a major collection. A one-request page's tree and
// a written answer's body are dropped; a Response a handler serves again is left whole.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Ok, Route, RouteTable, type Response } from "../../runtime/index.js";
import { OkOnce } from "../../runtime/http/response.js";
import type { Answer } from "../../runtime/server/answer.js";
import type { Dispatcher } from "../../runtime/server/dispatch.js";
import { startServer, type RunningServer } from "../../runtime/server/server.js";
import { serve, type Served } from "../support/serve.js";

const constant = Ok(<p>served again</p>);
const made: Response[] = [];

const table = RouteTable.of(
  Route.get("/constant", async () => {
    await Promise.resolve();
    return constant;
  }),
  Route.get("/once", async () => {
    await Promise.resolve();
    const page = OkOnce(
      <>
        <title>Once</title>
        <p>made for one request</p>
      </>,
    );
    made.push(page);
    return page;
  }),
);

let app: Served;
beforeAll(async () => {
  app = await serve({ routes: table, layout: ({ title, content }) => (
      <html lang="en">
        <head>
          <title>{title ?? "untitled"}</title>
        </head>
        <body>{content}</body>
      </html>
    ),
  });
});
afterAll(() => app.close());

describe("pages the dispatcher lets go of", () => {
  it("a one-request page (the derived Index and Show) is sent whole, then its tree is dropped", async () => {
    const answer = await app.get("/once");
    expect(await answer.text()).toContain("<title>Once</title></head><body><p>made for one request</p></body>");
    const page = made.at(-1);
    expect(page?.body.type).toBe("html");
    const tree = page?.body.type === "html" ? page.body.html : undefined;
    expect(JSON.stringify(tree)).not.toContain("made for one request");
  });

  it("a Response the handler serves again keeps its tree: every request gets the whole page", async () => {
    for (let i = 0; i < 3; i++) {
      const answer = await app.get("/constant");
      expect(await answer.text()).toContain("<body><p>served again</p></body>");
    }
    expect(constant.body.type === "html" ? JSON.stringify(constant.body.html) : "").toContain("served again");
  });
});

describe("answers the server lets go of", () => {
  const answers: Answer[] = [];
  let running: RunningServer;
  beforeAll(async () => {
    // The server under test is real; its dispatcher is a stand-in that keeps the answers it gives.
    const dispatcher = {
      dispatch: async (): Promise<Answer> => {
        await Promise.resolve();
        const answer: Answer = { status: 200, headers: ["content-type", "text/plain; charset=utf-8"], body: "x".repeat(10_000) };
        answers.push(answer);
        return answer;
      },
    } as unknown as Dispatcher;
    running = await startServer(dispatcher, undefined, {
      port: 0,
      host: "127.0.0.1",
      observe: undefined,
      graceMs: 100,
      timeouts: { headersMs: 5_000, requestMs: 10_000, keepAliveMs: 5_000, sendMs: 10_000 },
      logError: () => undefined,
    });
  });
  afterAll(() => running.close());

  it("a written answer's body is dropped once Node has it, and the client gets every byte", async () => {
    const answer = await fetch(`${running.url}/`);
    expect(await answer.text()).toBe("x".repeat(10_000));
    expect(answers).toHaveLength(1);
    expect(answers[0]?.body).toBe("");
  });
});
