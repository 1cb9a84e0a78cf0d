// The live pages of the bench's `live` part (bench/live.mjs), written as an app writes them: JSX
// compiled by `tspc -p bench/servers` with fw's JSX pre-renderer (tsconfig.json here), so the
// socket sends the holes of pre-rendered templates, as in an app. bench/servers/fw-live.mjs
// mounts them by hand with fw/live's route functions (what the generated table does).
import type { Layout } from "fw";
import { live, type LiveValues } from "fw/live";

/** A counter: one number, one button. */
export const counter = live({
  mount: () => ({ count: 0 }),
  render: (state) => (
    <>
      <title>Counter</title>
      <h1>Counter</h1>
      <p>
        Count: <output>{state.count}</output>
      </p>
      <button fw-click="increment" fw-value-by="1">+1</button>
    </>
  ),
  events: {
    increment: (state: { count: number }, values: LiveValues) => ({ count: state.count + Number(values["by"] ?? "1") }),
  },
});

interface Row {
  readonly id: number;
  readonly title: string;
  readonly owner: string;
  readonly done: boolean;
}

/** 50 rows, like a derived Index's page: each event toggles one row's `done`. */
export const list = live({
  mount: () => ({
    rows: Array.from({ length: 50 }, (_, i): Row => ({ id: i + 1, title: `Task #${i + 1}: "measure" <twice> & cut once`, owner: `user${(i % 7) + 1}@example.com`, done: i % 3 === 0 })),
  }),
  render: (state) => (
    <>
      <title>Tasks</title>
      <h1>Tasks</h1>
      <table>
        <thead>
          <tr>
            <th scope="col">Title</th>
            <th scope="col">Owner</th>
            <th scope="col">Done</th>
            <th scope="col"><span class="hidden">Links</span></th>
          </tr>
        </thead>
        <tbody>
          {state.rows.map((row) => (
            <tr class={row.done ? "done" : undefined}>
              <td>
                <a href={`/tasks/${row.id}`}>{row.title}</a>
              </td>
              <td>{row.owner}</td>
              <td>{row.done ? "Yes" : "No"}</td>
              <td>
                <button fw-click="toggle" fw-value-id={String(row.id)}>
                  {row.done ? "Reopen" : "Done"}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  ),
  events: {
    toggle: (state: { rows: readonly Row[] }, values: LiveValues) => {
      const id = Number(values["id"]);
      return { rows: state.rows.map((row) => (row.id === id ? { ...row, done: !row.done } : row)) };
    },
  },
});

/** A frame like an app's: head, navigation, main. */
export const layout: Layout = ({ title, content }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>{title} · Bench live</title>
      <link rel="stylesheet" href="/style.css" />
    </head>
    <body>
      <header>
        <a href="/">Bench live</a>
        <nav>
          <a href="/counter">Counter</a> <a href="/tasks">Tasks</a>
        </nav>
      </header>
      <main>{content}</main>
      <footer>
        <p>© 2026 Bench live</p>
      </footer>
    </body>
  </html>
);
