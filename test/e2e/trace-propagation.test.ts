import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { startTracing, type Tracing } from '@mp/telemetry';
import { queryTestDatabase, startHttpsReceiver, waitUntil, type HttpsReceiver } from '@mp/testing';
import { dataProject, recordAt } from '../support/data-project.js';
import { startTestPlatform, type TestPlatform } from '../support/platform.js';

// ADR 0037: the trace context crosses what no library crosses for us — the outbox row, the NATS
// JetStream message and the webhook delivery — with spans exported to an in-memory exporter.
// (Library spans — http, koa, grpc, pg — need the instrumentations loaded before the application,
// which jest's module system does not allow: test/faults/tracing-otlp.test.ts runs the real
// process against a real OTLP/HTTP receiver for those.)
describe('trace context through outbox, stream and webhook delivery', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing | null;
  let t: TestPlatform;
  let receiver: HttpsReceiver;
  let key: string;
  let projectId: string;
  let pointId: string;
  const h = (extra: Record<string, string> = {}) => ({ 'x-api-key': key, ...extra });
  const spans = () => exporter.getFinishedSpans();
  const named = (name: string) => spans().filter((s) => s.name === name);
  const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;

  beforeAll(async () => {
    tracing = await startTracing('monitoring-platform', { exporter, instrument: false });
    t = await startTestPlatform();
    key = await t.apiKey(['system:admin', 'project:read', 'project:write', 'data:read', 'data:write']);
    // the first attempt of each delivery fails (503), the retry a second later succeeds
    receiver = await startHttpsReceiver({ replies: [{ status: 503 }], fallback: { status: 200 } });
    const hook = await t.api('POST', '/webhooks', {
      headers: h(),
      body: { name: 'traced', url: receiver.url, events: ['data.created'], retry_policy: { max_retries: 2, retry_interval: 1 }, active: true },
    });
    expect(hook.status).toBe(200);
    ({ projectId, pointId } = await dataProject(t.api, h()));
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.stop();
    await tracing?.shutdown();
  });

  it('continues the client trace from the write to the webhook POST, and links the retry', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const clientSpan = '00f067aa0ba902b7';
    exporter.reset();
    const write = await t.api('POST', `/projects/${projectId}/data`, {
      headers: h({ traceparent: `00-${traceId}-${clientSpan}-01` }),
      body: { records: [recordAt(pointId, '2026-03-01T08:00:00+08:00')] },
    });
    expect(write.status).toBe(200);
    await receiver.waitFor(2, 30_000);
    await waitUntil(() => named('webhook POST').length === 2);

    // the outbox relay's publish continues the request's trace
    const publish = named('publish data.created').find((s) => s.spanContext().traceId === traceId)!;
    expect(publish).toBeDefined();
    expect(publish.kind).toBe(SpanKind.PRODUCER);
    expect(parentOf(publish)).toBe(clientSpan);
    expect(publish.attributes['messaging.message.id']).toMatch(/^evt_/);
    const eventId = publish.attributes['messaging.message.id'];

    // the webhooks consumer continues the publish (through the JetStream message)
    const receive = named('receive data.created').find((s) => s.attributes['messaging.message.id'] === eventId)!;
    expect(receive.kind).toBe(SpanKind.CONSUMER);
    expect(receive.spanContext().traceId).toBe(traceId);
    expect(parentOf(receive)).toBe(publish.spanContext().spanId);
    // the messaging attributes of the OpenTelemetry semantic conventions, on both sides
    const messaging = { 'messaging.system': 'nats', 'messaging.destination.name': `${t.stream.subjectPrefix}.data.created` };
    expect(publish.attributes).toMatchObject({ ...messaging, 'messaging.operation.type': 'send', 'messaging.operation.name': 'publish' });
    expect(receive.attributes).toMatchObject({
      ...messaging,
      'messaging.operation.type': 'process',
      'messaging.operation.name': 'process',
      'messaging.consumer.group.name': 'webhooks',
    });

    // the first attempt continues the consumer; it failed (503)
    const [first, retry] = named('webhook POST').sort((a, b) => (a.attributes['mp.attempt'] as number) - (b.attributes['mp.attempt'] as number));
    expect(first!.kind).toBe(SpanKind.CLIENT);
    expect(first!.spanContext().traceId).toBe(traceId);
    expect(parentOf(first!)).toBe(receive.spanContext().spanId);
    expect(first!.attributes).toMatchObject({ 'mp.attempt': 1, 'mp.outcome': 'retry', 'http.response.status_code': 503, 'http.request.method': 'POST' });
    expect(first!.status.code).toBe(2); // ERROR

    // the retry is a trace of its own, linked to the event's consumer span
    expect(retry!.spanContext().traceId).not.toBe(traceId);
    expect(retry!.parentSpanContext).toBeUndefined();
    expect(retry!.links.map((l) => [l.context.traceId, l.context.spanId])).toEqual([[traceId, receive.spanContext().spanId]]);
    expect(retry!.attributes).toMatchObject({ 'mp.attempt': 2, 'mp.outcome': 'delivered', 'http.response.status_code': 200 });

    // the receiver got no trace header: the delivery's headers are the documented ones
    expect(receiver.requests.every((r) => r.headers.traceparent === undefined)).toBe(true);
  });

  it('stores the trace context with the outbox row and with the webhooks event', async () => {
    const rows = await queryTestDatabase<{ traceparent: string | null }>(t.db.url, 'SELECT traceparent FROM monitoring_data.outbox ORDER BY seq DESC LIMIT 1');
    expect(rows[0]!.traceparent).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01$/);
    const events = await queryTestDatabase<{ traceparent: string | null }>(
      t.db.url,
      "SELECT traceparent FROM webhooks.events WHERE event_type = 'data.created' ORDER BY occurred_at DESC LIMIT 1",
    );
    const receive = named('receive data.created').at(-1)!;
    expect(events[0]!.traceparent).toBe(`00-${receive.spanContext().traceId}-${receive.spanContext().spanId}-01`);
  });
});
