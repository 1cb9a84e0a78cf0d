/**
 * Whether this process takes traffic (`GET /fw/health`), apart from whether it is alive
 * (`GET /fw/health/live`). `starting` from the moment it listens until its boot is done,
 * `ready` while it serves, `stopping` once it drains (SIGTERM, or a reload's old worker): a load
 * balancer or orchestrator sends requests only where it says `ready`.
 */
export type ReadinessState = "starting" | "ready" | "stopping";

export class Readiness {
  state: ReadinessState = "starting";
}
