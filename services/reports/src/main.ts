import { startOrExit } from '@mp/kit';
import { startTracing } from '@mp/telemetry';

// Standalone process entry. Tracing (when OTEL_EXPORTER_OTLP_ENDPOINT is set) starts before the
// application's modules are imported, so that its instrumentations see them load (ADR 0035).
const tracing = await startOrExit('reports', () => startTracing('reports'));
const { run } = await import('./process.js');
await run(tracing);
