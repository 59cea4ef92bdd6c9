/**
 * Traces with OpenTelemetry (beyond the spec; docs/operations.md "Traces"), exported only when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set (the standard variable: base URL of an OTLP/HTTP receiver,
 * spans POSTed as JSON to `<endpoint>/v1/traces`).
 *
 * Spans: `svc.graphql` for each GraphQL POST (attributes: `svc.status`, and on a refusal
 * `svc.refusal.code` and `svc.refusal.step`, the check-order row that refused), with a child
 * `svc.upstream` around the upstream call; `svc.subscription` for each subscription the relay
 * forwards. Every trace starts in the gateway: a caller's traceparent / tracestate is never read
 * and nothing of it is forwarded (SPEC "Forwarding rules": the upstream gets content-type and
 * authorization only). The provider is the gateway's own, never registered globally, so an app's
 * own OpenTelemetry setup is left alone. Attributes never carry a token, session id or bot id.
 */
import { context, type Span, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { DEFAULTS } from '../config/defaults.ts';

/** The gateway's tracing: spans, and a way to flush them before the process ends. */
export interface Tracing {
  /** A root span (no parent, whatever the caller sent). */
  startRoot(name: string): Span;
  /** A child of `parent`. */
  startChild(name: string, parent: Span): Span;
  /** Exports what is buffered and stops. */
  shutdown(): Promise<void>;
}

/** Tracing over an OTLP/HTTP receiver at `endpoint` (its base URL), or null when unset. */
export function createTracing(endpoint: string | undefined): Tracing | null {
  if (!endpoint) return null;
  const exporter = new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, '')}/v1/traces` });
  const provider = new BasicTracerProvider({
    spanProcessors: [
      new BatchSpanProcessor(exporter, { scheduledDelayMillis: DEFAULTS.traceExportDelayMs }),
    ],
  });
  const tracer: Tracer = provider.getTracer('svc-gateway');
  return {
    startRoot: (name) => tracer.startSpan(name, { root: true }),
    startChild: (name, parent) =>
      tracer.startSpan(name, {}, trace.setSpan(context.active(), parent)),
    shutdown: () => provider.shutdown(),
  };
}

/** Ends `span` as refused by `code` at check-order row `step`. */
export function endRefused(span: Span, code: string, step: number, status: number): void {
  span.setAttribute('svc.refusal.code', code);
  span.setAttribute('svc.refusal.step', String(step));
  span.setAttribute('svc.status', status);
  span.setStatus({ code: SpanStatusCode.ERROR, message: code });
  span.end();
}
