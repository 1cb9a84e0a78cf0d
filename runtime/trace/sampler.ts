import { diag, type Attributes, type Context, type Link, type SpanKind } from "@opentelemetry/api";
import { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, SamplingDecision, TraceIdRatioBasedSampler, type Sampler, type SamplingResult } from "@opentelemetry/sdk-trace-node";

/**
 * The sampler the standard variables choose (OTEL_TRACES_SAMPLER and _ARG, read as the SDK reads
 * them: default `parentbased_always_on`, a missing or out-of-range ratio 1), wrapped so that fw can
 * make a new trace's decision before it asks the SDK for a span: a request that arrives without a
 * `traceparent` is one draw of `Math.random()` against the root's ratio, and one left out costs
 * nothing more (no ids made, no span, no context: about 5 % of the session page's time, measured,
 * bench/FINDINGS.md 28). A ratio sampler's decision on a new trace id is a draw with that
 * probability too, so what is sampled is the same share; what differs is only that the decision
 * is not a function of the trace id, which nothing downstream reads: a sampled request tells the
 * servers it calls that it is sampled, and an unsampled one tells them nothing either way.
 */
export class RequestSampler implements Sampler {
  /** Set by `decided` around the SDK's call: the span it starts was sampled by fw's draw. */
  #decided = false;

  private constructor(
    private readonly inner: Sampler,
    /** The probability a new trace is sampled with. */
    readonly rootRatio: number,
  ) {}

  /** The sampler the environment asks for. */
  static fromEnv(env: NodeJS.ProcessEnv): RequestSampler {
    const name = (env["OTEL_TRACES_SAMPLER"] ?? "").trim() || "parentbased_always_on";
    switch (name) {
      case "always_on":
        return new RequestSampler(new AlwaysOnSampler(), 1);
      case "always_off":
        return new RequestSampler(new AlwaysOffSampler(), 0);
      case "parentbased_always_on":
        return new RequestSampler(new ParentBasedSampler({ root: new AlwaysOnSampler() }), 1);
      case "parentbased_always_off":
        return new RequestSampler(new ParentBasedSampler({ root: new AlwaysOffSampler() }), 0);
      case "traceidratio": {
        const ratio = ratioOf(env);
        return new RequestSampler(new TraceIdRatioBasedSampler(ratio), ratio);
      }
      case "parentbased_traceidratio": {
        const ratio = ratioOf(env);
        return new RequestSampler(new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) }), ratio);
      }
      default:
        diag.error(`OTEL_TRACES_SAMPLER value "${name}" invalid, defaulting to "parentbased_always_on".`);
        return new RequestSampler(new ParentBasedSampler({ root: new AlwaysOnSampler() }), 1);
    }
  }

  /** Whether a new trace (a request without a trace context) is sampled: one draw. */
  sampleRoot(): boolean {
    return this.rootRatio >= 1 || (this.rootRatio > 0 && Math.random() < this.rootRatio);
  }

  /** Runs `start` (the SDK's startSpan of a new trace fw's draw sampled) with the decision taken. */
  decided<T>(start: () => T): T {
    this.#decided = true;
    try {
      return start();
    } finally {
      this.#decided = false;
    }
  }

  shouldSample(context: Context, traceId: string, name: string, kind: SpanKind, attributes: Attributes, links: Link[]): SamplingResult {
    if (this.#decided) return { decision: SamplingDecision.RECORD_AND_SAMPLED };
    return this.inner.shouldSample(context, traceId, name, kind, attributes, links);
  }

  toString(): string {
    return `RequestSampler{${this.inner.toString()}}`;
  }
}

/** OTEL_TRACES_SAMPLER_ARG as the SDK reads it: a number in [0, 1], else 1 (said once). */
function ratioOf(env: NodeJS.ProcessEnv): number {
  const raw = (env["OTEL_TRACES_SAMPLER_ARG"] ?? "").trim();
  const ratio = raw === "" ? NaN : Number(raw);
  if (Number.isNaN(ratio)) {
    diag.error("OTEL_TRACES_SAMPLER_ARG is blank, defaulting to 1.");
    return 1;
  }
  if (ratio < 0 || ratio > 1) {
    diag.error(`OTEL_TRACES_SAMPLER_ARG=${ratio} was given, but it is out of range ([0..1]), defaulting to 1.`);
    return 1;
  }
  return ratio;
}
