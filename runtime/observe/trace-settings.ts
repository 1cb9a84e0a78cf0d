import { BootError } from "../routing/boot-error.js";

/**
 * Whether the standard OpenTelemetry variables ask for traces: an OTLP endpoint
 * (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT`), or
 * `OTEL_TRACES_EXPORTER` naming `otlp` (then OTLP's default, http://localhost:4318) or `console`.
 * `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none` turn them off. Nothing set: off, and
 * OpenTelemetry is never loaded. An exporter or an OTLP protocol fw does not speak stops the boot.
 */
export function tracingWanted(env: NodeJS.ProcessEnv): "otlp" | "console" | undefined {
  if (set(env["OTEL_SDK_DISABLED"])?.toLowerCase() === "true") return undefined;
  const exporters = (set(env["OTEL_TRACES_EXPORTER"]) ?? "").split(",").map((name) => name.trim().toLowerCase()).filter((name) => name !== "");
  if (exporters.includes("none")) return undefined;
  const unknown = exporters.filter((name) => name !== "otlp" && name !== "console");
  if (unknown.length > 0) throw new BootError(`OTEL_TRACES_EXPORTER=${JSON.stringify(env["OTEL_TRACES_EXPORTER"])}: fw exports traces with otlp (or console, for a look), not ${unknown.join(", ")}.`);
  const endpoint = set(env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]) ?? set(env["OTEL_EXPORTER_OTLP_ENDPOINT"]);
  const wanted = exporters.includes("console") && !exporters.includes("otlp") ? "console" : exporters.includes("otlp") || endpoint !== undefined ? "otlp" : undefined;
  if (wanted === "otlp") {
    const protocol = set(env["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"]) ?? set(env["OTEL_EXPORTER_OTLP_PROTOCOL"]) ?? "http/protobuf";
    if (protocol !== "http/protobuf") throw new BootError(`OTEL_EXPORTER_OTLP_PROTOCOL=${JSON.stringify(protocol)}: fw sends OTLP traces as http/protobuf (OTLP's default); unset it or set http/protobuf.`);
  }
  return wanted;
}

function set(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}
