// The service's spans, through the OpenTelemetry API only (docs/access-and-observability.md, "Traces"). Off unless
// sdk.ts started the SDK (OTEL_EXPORTER_OTLP_ENDPOINT set): then every helper here runs its function and nothing else.
//
// One task is one trace: the submission's span (child of the caller's `traceparent`, when it sent one) is stored
// with the task as a W3C traceparent, and every replica that runs the task starts its run span under it.
import {
  context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Context,
  type Link,
  type Span,
} from "@opentelemetry/api";

export { SpanKind, type Attributes, type Span };

/** Ends a span's run as an error that threw nothing: a task's run stopped by a lost lease or the shutdown. */
export function markStopped(span: Span | undefined, why: string): void {
  span?.setStatus({ code: SpanStatusCode.ERROR, message: why });
}

let enabled = false;

/** Set by sdk.ts once a tracer provider is registered; the helpers do nothing until then. */
export function setTracingEnabled(on: boolean): void {
  enabled = on;
}

export function tracingEnabled(): boolean {
  return enabled;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The context a W3C `traceparent` names (a remote parent); undefined when it is absent or malformed. */
export function contextOfTraceparent(traceparent: string | undefined, tracestate?: string): Context | undefined {
  const m = traceparent === undefined ? null : TRACEPARENT.exec(traceparent.trim().toLowerCase());
  if (!m || m[1] === "ff" || /^0+$/.test(m[2]) || /^0+$/.test(m[3])) return undefined;
  void tracestate;
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: m[2],
    spanId: m[3],
    traceFlags: parseInt(m[4], 16) & TraceFlags.SAMPLED,
    isRemote: true,
  });
}

/** The W3C traceparent of a span. */
export function traceparentOf(span: Span): string {
  const c = span.spanContext();
  return `00-${c.traceId}-${c.spanId}-0${(c.traceFlags & TraceFlags.SAMPLED).toString(16)}`;
}

/** The trace id a traceparent carries. */
export function traceIdOf(traceparent: string | undefined): string | undefined {
  return traceparent === undefined ? undefined : TRACEPARENT.exec(traceparent)?.[2];
}

/** The traceparent of the span running now; undefined when tracing is off or no span runs. */
export function currentTraceparent(): string | undefined {
  if (!enabled) return undefined;
  const span = trace.getActiveSpan();
  return span && span.spanContext().traceId !== "0".repeat(32) ? traceparentOf(span) : undefined;
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** The parent; default: the span running now. */
  parent?: Context;
  links?: Link[];
}

/**
 * Runs fn in a new span, made the active one for what fn awaits: ended when fn settles, its status an error (with
 * the exception recorded) when fn throws. With tracing off, just fn.
 */
export function inSpan<T>(name: string, options: SpanOptions, fn: (span?: Span) => Promise<T>): Promise<T> {
  if (!enabled) return fn();
  const tracer = trace.getTracer("vmss-ops");
  const parent = options.parent ?? context.active();
  return tracer.startActiveSpan(
    name,
    {
      kind: options.kind ?? SpanKind.INTERNAL,
      ...(options.attributes ? { attributes: options.attributes } : {}),
      ...(options.links ? { links: options.links } : {}),
    },
    parent,
    async (span) => {
      try {
        return await fn(span);
      } catch (err) {
        span.recordException(err as Error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.message });
        throw err;
      } finally {
        span.end();
      }
    },
  );
}

/** A link to the span a traceparent names (a resume links to the run it takes over from). */
export function linkTo(traceparent: string | undefined, attributes?: Attributes): Link[] {
  const ctx = contextOfTraceparent(traceparent);
  const spanContext = ctx && trace.getSpanContext(ctx);
  return spanContext ? [{ context: spanContext, ...(attributes ? { attributes } : {}) }] : [];
}

/** What a server span needs of an HTTP request (a Fastify request has it). */
export interface TracedRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  routeOptions?: { url?: string };
}

function header(request: TracedRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * A submission, as the server span of its request (HTTP conventions), child of the caller's `traceparent` when it
 * sent one: the root of the task's trace. fn stores the task while it is the active span (Task.traceparent).
 */
export function inSubmissionSpan<T>(request: TracedRequest, attributes: Attributes, fn: () => Promise<T>): Promise<T> {
  if (!enabled) return fn();
  const route = request.routeOptions?.url ?? request.url.split("?")[0];
  return inSpan(
    `${request.method} ${route}`,
    {
      kind: SpanKind.SERVER,
      parent: contextOfTraceparent(header(request, "traceparent"), header(request, "tracestate")) ?? ROOT_CONTEXT,
      attributes: {
        "http.request.method": request.method,
        "http.route": route,
        "url.path": request.url.split("?")[0],
        ...attributes,
      },
    },
    fn,
  );
}

/** The active span's ids, for a log line (pino's mixin): trace_id and span_id, as OpenTelemetry's log records name them. */
export function traceLogFields(): Record<string, string> {
  const c = enabled ? trace.getActiveSpan()?.spanContext() : undefined;
  return c ? { trace_id: c.traceId, span_id: c.spanId } : {};
}
