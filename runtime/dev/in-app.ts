import { randomBytes } from "node:crypto";
import type { DevHook } from "../server/dev-hook.js";
import { buildErrorContent } from "./build-error-page.js";
import type { BuildDiagnostic, ToApp } from "./protocol.js";
import { injectBeforeBodyEnd, reloadClient } from "./reload-client.js";
import { ReloadHub } from "./reload-hub.js";
import { supervisorLink, type SupervisorLink } from "./supervisor-link.js";

/**
 * The dev hook of one app process: the reload sockets, the reload client, and the build state
 * the supervisor reports. `link` defaults to the IPC channel to `fw dev` (none when run alone).
 */
export function createDevHook(link: SupervisorLink | undefined = supervisorLink()): DevHook {
  const hub = new ReloadHub(randomBytes(6).toString("hex"));
  const client = reloadClient(hub.boot);
  let failed: readonly BuildDiagnostic[] | undefined;
  let mayListen: () => void = () => {};
  const listening = new Promise<void>((resolve) => (mayListen = resolve));
  const holding = new Map<string, { resolve: () => void; reject: (error: Error) => void }>();
  link?.listen((message: ToApp) => {
    if (message.type === "listen") return mayListen();
    if (message.type === "database-held") {
      const waiter = holding.get(message.directory);
      holding.delete(message.directory);
      if (message.error === undefined) waiter?.resolve();
      else waiter?.reject(new Error(message.error));
      return;
    }
    // Either way the open pages reload: to show the diagnostics, or to leave them.
    failed = message.type === "build-failed" ? message.diagnostics : undefined;
    hub.reload();
  });
  return {
    sockets: [hub.route],
    beforeListen: () => {
      if (link === undefined) return Promise.resolve();
      link.send({ fw: "dev", type: "loaded" });
      return listening;
    },
    buildFailure: (instance) => (failed === undefined ? undefined : buildErrorContent(failed, instance)),
    decorate: (html) => injectBeforeBodyEnd(html, client),
    started: (url, listing, out) => {
      if (link === undefined) out(listing);
      else link.send({ fw: "dev", type: "ready", url, listing });
    },
    close: () => link?.close(),
    reloadPages: () => hub.reload(),
    ...(link === undefined
      ? {}
      : {
          holdDatabase: (directory: string, module: string) =>
            new Promise<void>((resolve, reject) => {
              holding.set(directory, { resolve, reject });
              link.send({ fw: "dev", type: "hold-database", directory, module });
            }),
        }),
  };
}
