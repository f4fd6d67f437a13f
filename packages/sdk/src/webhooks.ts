import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors.js';
import type { WebhookEvents } from './generated.js';

export type { WebhookEvents };

/** An event type a webhook can receive (the test event's `webhook.test` included). */
export type WebhookEventType = keyof WebhookEvents;

/**
 * The envelope pushed to a webhook: a union over the event types, so checking `event_type`
 * narrows `data` to that event's payload. `WebhookEvent<'task.created'>` is one type's envelope.
 */
export type WebhookEvent<T extends WebhookEventType = WebhookEventType> = WebhookEvents[T];

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  const found = Object.keys(bag).find((k) => k.toLowerCase() === name);
  const value = found === undefined ? undefined : bag[found];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Checks a webhook delivery as docs/rules.md#signatures says and returns its event: the timestamp within
 * `toleranceSeconds` (300) of now, then HMAC-SHA256 over `timestamp.rawBody` with the webhook's
 * secret, compared in constant time. `rawBody` must be the bytes as received, before any JSON
 * parsing. Throws WebhookVerificationError otherwise. While a rotated secret is in its grace
 * period, pass both secrets: either may sign.
 */
export function verifyWebhook(
  secret: string | readonly string[],
  headers: HeaderBag,
  rawBody: string | Buffer,
  opts: { toleranceSeconds?: number; now?: number } = {},
): WebhookEvent {
  const timestamp = header(headers, 'x-service-timestamp');
  const signature = header(headers, 'x-service-signature');
  if (!timestamp || !/^\d{1,12}$/.test(timestamp)) throw new WebhookVerificationError('X-Service-Timestamp is missing or not Unix seconds.');
  if (!signature || !/^sha256=[0-9a-f]{64}$/.test(signature)) throw new WebhookVerificationError('X-Service-Signature is missing or not sha256=<64 hex>.');
  const now = Math.floor((opts.now ?? Date.now()) / 1000);
  if (Math.abs(now - Number(timestamp)) > (opts.toleranceSeconds ?? 300)) {
    throw new WebhookVerificationError('X-Service-Timestamp is more than 300 s from now (a replay, or a clock off).');
  }
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  const given = Buffer.from(signature.slice('sha256='.length), 'hex');
  const signedBy = (s: string) => {
    const expected = createHmac('sha256', s).update(`${timestamp}.`).update(body).digest();
    return timingSafeEqual(expected, given);
  };
  const secrets = typeof secret === 'string' ? [secret] : secret;
  if (!secrets.some(signedBy)) throw new WebhookVerificationError('The signature does not match the body and timestamp.');
  return JSON.parse(body.toString('utf8')) as WebhookEvent;
}
