// prom-client's per-metric collectors (lib/metrics/*.js), which its package types do not declare:
// each adds its metrics to the registry in `config.register` (node-metrics.ts).
declare module "prom-client/lib/metrics/*.js" {
  import type { Registry } from "prom-client";
  const collect: (registry: Registry, config: { readonly register: Registry; readonly eventLoopMonitoringPrecision?: number }) => void;
  export default collect;
}
