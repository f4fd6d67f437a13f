import { DomainError, excerpt } from '@mp/errors';
import { EVENT_TYPES, isEventType } from '@mp/events';
import type { webhooks } from '@mp/contracts';
import { assertWebhookUrlAllowed } from './delivery/target-guard.js';

export const RETRY_DEFAULTS = { maxRetries: 3, retryInterval: 5 } as const;
export const RETRY_LIMITS = { maxRetries: [0, 10], retryInterval: [1, 3600] } as const;
/** Longest webhook URL (the gateway's bound too). */
export const MAX_URL_LENGTH = 2000;
/** Most entries of `events` (each event type once is far fewer; repeats are dropped). */
export const MAX_EVENTS = 50;

export function checkName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > 100) {
    throw new DomainError('400003', {
      field: 'name',
      detail: 'name must be 1 to 100 characters long.',
      suggestion: 'Send a webhook name of 1 to 100 characters.',
    });
  }
  return trimmed;
}

export function checkEvents(events: string[]): string[] {
  if (events.length === 0) {
    throw new DomainError('422101', {
      field: 'events',
      detail: 'events must list at least one event type.',
      suggestion: `Subscribe to one or more of: ${EVENT_TYPES.join(', ')}.`,
    });
  }
  if (events.length > MAX_EVENTS) {
    throw new DomainError('400003', { field: 'events', detail: `events lists at most ${MAX_EVENTS} event types.`, suggestion: 'List each event type once.' });
  }
  events.forEach((e, i) => {
    if (!isEventType(e)) {
      throw new DomainError('422103', {
        field: `events[${i}]`,
        detail: `${excerpt(e)} is not an event type.`,
        suggestion: `Use one of: ${EVENT_TYPES.join(', ')}.`,
      });
    }
  });
  return [...new Set(events)];
}

export function checkRetryPolicy(policy: webhooks.RetryPolicy | undefined): { maxRetries: number; retryInterval: number } {
  const p = { maxRetries: policy?.maxRetries ?? RETRY_DEFAULTS.maxRetries, retryInterval: policy?.retryInterval ?? RETRY_DEFAULTS.retryInterval };
  const [minR, maxR] = RETRY_LIMITS.maxRetries;
  if (p.maxRetries < minR || p.maxRetries > maxR) {
    throw new DomainError('400003', { field: 'retry_policy.max_retries', detail: `max_retries must be between ${minR} and ${maxR}.` });
  }
  const [minI, maxI] = RETRY_LIMITS.retryInterval;
  if (p.retryInterval < minI || p.retryInterval > maxI) {
    throw new DomainError('400003', { field: 'retry_policy.retry_interval', detail: `retry_interval must be between ${minI} and ${maxI} seconds.` });
  }
  return p;
}

export async function checkUrl(url: string, allowPrivate: boolean): Promise<string> {
  if (url.length > MAX_URL_LENGTH) {
    throw new DomainError('400003', { field: 'url', detail: `url is at most ${MAX_URL_LENGTH} characters long.`, suggestion: 'Use a shorter receiver URL.' });
  }
  await assertWebhookUrlAllowed(url, { allowPrivate });
  return url;
}
