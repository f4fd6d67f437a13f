import { register } from 'node:module';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { GrpcInstrumentation } from '@opentelemetry/instrumentation-grpc';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { KoaInstrumentation, KoaLayerType } from '@opentelemetry/instrumentation-koa';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, SimpleSpanProcessor, TracerProvider, type Sampler, type SpanExporter } from '@opentelemetry/sdk-trace';
import { createAddHookMessageChannel } from 'import-in-the-middle';
import { LIBRARY_SPANS_OFF } from '@mp/kit';
import { tracingSettings } from './settings.js';

export interface Tracing {
  provider: TracerProvider;
  /** Exports what is buffered and stops; call last when the process stops. */
  shutdown(): Promise<void>;
}

export interface TracingOptions {
  env?: Record<string, string | undefined>;
  /** Tests: export here, span by span, instead of OTLP (tracing is then on whatever the env says). */
  exporter?: SpanExporter;
  sampler?: Sampler;
  /**
   * Patch http, koa, grpc, pg and ioredis (default true). Must run before the application's
   * modules are imported: a standalone entry starts tracing, then imports the application
   * dynamically (services' main.ts, scripts/start.mjs).
   */
  instrument?: boolean;
}

/** Paths of the ops server and health checks: probes and scrapes every few seconds are no traces. */
const UNTRACED_PATHS = new Set(['/livez', '/readyz', '/metrics', '/healthz', '/v3/healthz', '/v3/readyz']);

/**
 * Starts tracing for a process (ADR 0035) when the OTel variables ask for it (an OTLP endpoint
 * is set); resolves with null, having loaded and patched nothing, otherwise. `serviceName` is
 * the default of `service.name`; OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES override it.
 */
export async function startTracing(serviceName: string, opts: TracingOptions = {}): Promise<Tracing | null> {
  const env = opts.env ?? process.env;
  const settings = opts.exporter ? null : tracingSettings(env);
  if (!opts.exporter && !settings) return null;

  if (opts.instrument !== false) {
    // ESM: modules imported from now on go through import-in-the-middle, but only those an
    // instrumentation asked for (the message channel tells the loader which), so the rest load
    // unwrapped and at full speed.
    const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
    register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);
    registerInstrumentations({
      instrumentations: [
        new HttpInstrumentation({
          ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.has((req.url ?? '').split('?')[0]!),
          // a webhook attempt's own client span stands for its requests (@mp/kit inSpan quiet)
          ignoreOutgoingRequestHook: () => context.active().getValue(LIBRARY_SPANS_OFF) === true,
        }),
        // Router spans only: a span per middleware of every request cost more than it told.
        new KoaInstrumentation({ ignoreLayersType: [KoaLayerType.MIDDLEWARE] }),
        new GrpcInstrumentation(),
        new PgInstrumentation({ requireParentSpan: true }),
        new IORedisInstrumentation({ requireParentSpan: true }),
      ],
    });
    await waitForAllMessagesAcknowledged();
  }

  const exporter = opts.exporter ?? (settings!.protocol === 'http/json' ? new OtlpJsonExporter() : new OtlpProtoExporter());
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': serviceName }))
    .merge(detectResources({ detectors: [envDetector] }));
  const sampler = opts.sampler ?? settings?.sampler;
  const provider = new TracerProvider({
    resource,
    ...(sampler ? { sampler } : {}),
    spanProcessors: [opts.exporter ? new SimpleSpanProcessor({ exporter }) : new BatchSpanProcessor({ exporter })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  return {
    provider,
    async shutdown() {
      await provider.shutdown().catch(() => undefined);
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}
