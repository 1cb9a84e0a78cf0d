import { rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HttpApp, type HttpAppOptions, type RunningServer } from "../../runtime/index.js";
import type { DevHook } from "../../runtime/server/dev-hook.js";
import { afterAll } from "vitest";

export const TEST_SECRET = "test-secret-0123456789-abcdefghijklmnop";

/**
 * Where apps booted by this test process (PRODUCTION_ENV) put their mail (fw/mail's FW_MAILBOX,
 * never SMTP): one folder per test process; tests tell messages apart by their fresh addresses.
 */
export const TEST_MAILBOX = join(tmpdir(), `fw-test-mailbox-${process.pid}`);

// Registered as the file is collected, before the file's own hooks, so it runs after them (once
// the apps that wrote there are stopped), as spec/support/example.ts does for its folders.
afterAll(() => rmSync(TEST_MAILBOX, { recursive: true, force: true }));

/**
 * The environment of a test app booted in production: its secret, and the hosts it is asked by
 * (issue 32: production refuses to boot without FW_ORIGIN or FW_ALLOWED_HOSTS), its public origin
 * (mail's links name it) and its mailbox (the example has a mailer: production wants SMTP_URL otherwise).
 */
export const PRODUCTION_ENV = { FW_SECRET: TEST_SECRET, FW_ALLOWED_HOSTS: "127.0.0.1,localhost", FW_ORIGIN: "http://localhost", FW_MAILBOX: TEST_MAILBOX } as const;

/** A running app on 127.0.0.1 plus what it printed. */
export interface Served {
  readonly url: string;
  readonly port: number;
  readonly out: string[];
  readonly err: string[];
  readonly running: RunningServer;
  close(): Promise<void>;
  get(path: string, init?: RequestInit): Promise<globalThis.Response>;
  post(path: string, form: Record<string, string> | string, init?: RequestInit): Promise<globalThis.Response>;
}

/** Boots an app on an ephemeral port; access log off unless asked. */
export async function serve(
  options: HttpAppOptions,
  serveOptions: { dev?: boolean; accessLog?: boolean; devHook?: DevHook } = {},
): Promise<Served> {
  // Production refuses to boot without knowing its hosts (FW_ORIGIN or FW_ALLOWED_HOSTS): these
  // in-process apps answer any host unless the test names its own.
  const named = serveOptions.dev === true || options.allowedHosts !== undefined || options.origin !== undefined || process.env["FW_ALLOWED_HOSTS"] || process.env["FW_ORIGIN"];
  const app = new HttpApp({ secret: TEST_SECRET, ...(named ? {} : { allowedHosts: ["*"] }), ...options });
  const out: string[] = [];
  const err: string[] = [];
  app.console = { out: (line) => out.push(line), err: (line) => err.push(line) };
  const running = await app.serve({
    port: 0,
    host: "127.0.0.1",
    accessLog: serveOptions.accessLog ?? false,
    dev: serveOptions.dev ?? false,
    ...(serveOptions.devHook === undefined ? {} : { devHook: serveOptions.devHook }),
  });
  const url = running.url;
  return {
    url,
    port: running.port,
    out,
    err,
    running,
    close: () => running.close(),
    get: (path, init) => fetch(url + path, { redirect: "manual", ...init }),
    post: (path, form, init) =>
      fetch(url + path, {
        method: "POST",
        redirect: "manual",
        ...init,
        headers: { "content-type": "application/x-www-form-urlencoded", ...(init?.headers as Record<string, string> | undefined) },
        body: typeof form === "string" ? form : new URLSearchParams(form).toString(),
      }),
  };
}

/** Sends raw bytes on a fresh connection and resolves with everything the server sent back. */
export function rawRequest(port: number, bytes: string | Buffer, timeoutMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(Buffer.concat(chunks).toString("latin1"));
    }, timeoutMs);
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("end", () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString("latin1"));
    });
    socket.on("error", (error) => {
      clearTimeout(timer);
      if (chunks.length > 0) resolve(Buffer.concat(chunks).toString("latin1"));
      else reject(error);
    });
    socket.write(bytes);
  });
}

/** The `name=value` of the session cookie a response sets, or undefined. */
export function sessionCookie(response: globalThis.Response): string | undefined {
  const cookie = response.headers.getSetCookie().find((c) => c.startsWith("fw_session="));
  return cookie?.split(";")[0];
}

/** The CSRF token rendered into a page as `name="_csrf" value="…"`. */
export function csrfFrom(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  if (match?.[1] === undefined) throw new Error(`no _csrf field in page:\n${html}`);
  return match[1];
}
