import {
  context,
  createContextKey,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
} from '@opentelemetry/api';

/**
 * Trace helpers for what no instrumentation library crosses for us: the outbox, the event stream
 * and webhook delivery (ADR 0037). They use only the OpenTelemetry API: with tracing off (no SDK
 * registered, see @mp/telemetry) every call is a cheap no-op and the W3C `traceparent` a client
 * sent still travels as before.
 */
export const tracer = () => trace.getTracer('monitoring-platform');
export { SpanKind, SpanStatusCode };

const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** The trace id of the active span, or of a well-formed `traceparent` when no span is active. */
export function currentTraceId(fallbackTraceparent?: string): string | undefined {
  const sc = trace.getActiveSpan()?.spanContext();
  if (sc && trace.isSpanContextValid(sc)) return sc.traceId;
  return fallbackTraceparent ? TRACEPARENT.exec(fallbackTraceparent)?.[1] : undefined;
}

/** The W3C `traceparent` of a context (the active one by default); undefined when it has no valid span. */
export function traceparentOf(ctx: Context = context.active()): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  return carrier.traceparent;
}

/** The context a stored or received `traceparent` continues (the root context when absent). */
export function contextFrom(traceparent: string | null | undefined): Context {
  return traceparent ? propagation.extract(ROOT_CONTEXT, { traceparent }) : ROOT_CONTEXT;
}

/** A link to the span a stored `traceparent` names, for work that follows it much later. */
export function linkTo(traceparent: string | null | undefined): Link[] {
  const sc = trace.getSpanContext(contextFrom(traceparent));
  return sc && trace.isSpanContextValid(sc) ? [{ context: sc }] : [];
}

/**
 * Set in the context of a span that already stands for the library calls made inside it (a
 * webhook attempt and the HTTPS requests of its redirects): the HTTP instrumentation makes no
 * spans of its own there (@mp/telemetry reads it).
 */
export const LIBRARY_SPANS_OFF = createContextKey('mp.library-spans-off');

export interface SpanOptions {
  kind: SpanKind;
  /** No spans of instrumented libraries inside this one (LIBRARY_SPANS_OFF). */
  quiet?: boolean;
  /** Continue this context (default: the active one). */
  parent?: Context;
  links?: Link[];
  attributes?: Attributes;
}

/**
 * Runs `fn` in a new span (active for everything `fn` calls), ended when `fn` settles; a thrown
 * error marks the span as failed and is rethrown.
 */
export async function inSpan<T>(name: string, opts: SpanOptions, fn: (span: Span) => Promise<T>): Promise<T> {
  const parent = opts.parent ?? context.active();
  const span = tracer().startSpan(
    name,
    { kind: opts.kind, ...(opts.links ? { links: opts.links } : {}), ...(opts.attributes ? { attributes: opts.attributes } : {}) },
    parent,
  );
  try {
    const inner = trace.setSpan(parent, span);
    return await context.with(opts.quiet ? inner.setValue(LIBRARY_SPANS_OFF, true) : inner, () => fn(span));
  } catch (err) {
    span.recordException(err as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
    throw err;
  } finally {
    span.end();
  }
}

/**
 * Starts a span that `end()` finishes later (work that is handed over, such as an event waiting
 * for its batch to commit), and the `traceparent` that continues it (undefined when not traced).
 */
export function startSpan(name: string, opts: SpanOptions): { span: Span; traceparent: string | undefined } {
  const parent = opts.parent ?? context.active();
  const span = tracer().startSpan(
    name,
    { kind: opts.kind, ...(opts.links ? { links: opts.links } : {}), ...(opts.attributes ? { attributes: opts.attributes } : {}) },
    parent,
  );
  return { span, traceparent: traceparentOf(trace.setSpan(parent, span)) };
}

/** Ends a span as failed. */
export function failSpan(span: Span, err: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
  span.end();
}
