import type { z } from 'zod';
import { DELIVERY, EVENT_CATALOGUE, EVENT_TYPES, readPermissionOf, TEST_EVENT, TEST_EVENT_TYPE } from '@mp/events';

type Json = Record<string, unknown>;

/** `data.batch_completed` → `DataBatchCompletedEvent`: the component of an event's envelope. */
export const envelopeComponentOf = (type: string) =>
  type
    .split(/[._]/)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('') + 'Event';

const SIGNATURE_RULE = [
  `**Verifying a delivery:** read \`${DELIVERY.headers.timestamp}\` and \`${DELIVERY.headers.signature}\`;`,
  `refuse a timestamp more than ${DELIVERY.toleranceSeconds} seconds from your clock (a replay);`,
  'compute HMAC-SHA256, keyed with the webhook’s secret, of the timestamp, a period and the raw request body exactly as received (before any JSON parsing);',
  `compare its lowercase hex, in constant time, with the signature after its \`${DELIVERY.signaturePrefix}\` prefix.`,
  'While a rotated secret is in its grace period either secret may sign.',
  'The SDK’s `verifyWebhook(secret, headers, rawBody)` does all of this and returns the event typed by its `event_type`.',
].join(' ');

const DELIVERY_TEXT = [
  'Answer with any 2xx status within 30 seconds to acknowledge. Anything else (or no answer) is retried with exponential back-off (by default 3 retries after 5 s, 25 s and 125 s; `retry_policy` of the webhook).',
  `The same \`event_id\` can arrive more than once: process it idempotently (\`${DELIVERY.headers.eventId}\` carries it before the body is parsed).`,
].join(' ');

const HEADER_PARAMETERS: Json[] = [
  {
    name: DELIVERY.headers.signature,
    in: 'header',
    required: true,
    description: `\`${DELIVERY.signaturePrefix}\` followed by the lowercase hex HMAC-SHA256 of \`{timestamp}.{raw body}\`, keyed with the webhook's secret.`,
    schema: { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' },
  },
  {
    name: DELIVERY.headers.timestamp,
    in: 'header',
    required: true,
    description: `Unix time in seconds when the delivery was signed; refuse it when more than ${DELIVERY.toleranceSeconds} s from your clock.`,
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  {
    name: DELIVERY.headers.eventId,
    in: 'header',
    required: true,
    description: 'The event_id of the body: the key to de-duplicate on.',
    schema: { type: 'string' },
  },
  { name: 'User-Agent', in: 'header', required: true, schema: { type: 'string', const: DELIVERY.userAgent } },
];

/**
 * The document's `webhooks` section (OpenAPI 3.1): one POST per event type the platform sends,
 * its body the envelope around the event's data as the event catalogue defines it, with the
 * delivery headers and the signature rule. `convert` turns a zod schema into JSON Schema and
 * collects its named parts as components.
 */
export function webhooksSection(convert: (schema: z.ZodType) => Json): { webhooks: Json; components: Record<string, Json> } {
  const entries: [string, { payload: z.ZodType; fires: string }, string | null][] = [
    ...EVENT_TYPES.map((type) => [type, EVENT_CATALOGUE[type], readPermissionOf(type)] as [string, { payload: z.ZodType; fires: string }, string]),
    [TEST_EVENT_TYPE, TEST_EVENT, null],
  ];
  const webhooks: Json = {};
  const components: Record<string, Json> = {};
  for (const [type, entry, permission] of entries) {
    const name = envelopeComponentOf(type);
    components[name] = {
      type: 'object',
      description: `The envelope of ${type}.`,
      properties: {
        event_id: { type: 'string', pattern: '^evt_', description: 'Unique per event; the same on every retry.' },
        event_type: { type: 'string', const: type },
        timestamp: { type: 'string', description: 'ISO 8601 UTC time the change was committed.' },
        webhook_id: { type: 'string', pattern: '^whk_' },
        data: convert(entry.payload),
      },
      required: ['event_id', 'event_type', 'timestamp', 'webhook_id', 'data'],
      additionalProperties: false,
    };
    const subscribe =
      permission === null
        ? 'Not subscribed to: sent only by POST /webhooks/{webhook_id}/test, to that webhook.'
        : `Sent to every active webhook subscribed to \`${type}\` (subscribing needs \`${permission}\`).`;
    webhooks[type] = {
      post: {
        operationId: `webhook${name}`,
        summary: entry.fires.replace(/\.$/, ''),
        description: [entry.fires, subscribe, DELIVERY_TEXT, SIGNATURE_RULE].join('\n\n'),
        tags: ['Webhook events'],
        parameters: HEADER_PARAMETERS,
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } } },
        responses: {
          '2XX': { description: 'Acknowledged: the delivery is recorded as delivered.' },
          default: { description: 'Not acknowledged: the delivery is retried, then recorded as failed.' },
        },
      },
    };
  }
  return { webhooks, components };
}
