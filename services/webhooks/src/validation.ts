import { DomainError, excerpt } from '@mp/errors';
import { EVENT_TYPES, isEventType, readPermissionOf } from '@mp/events';
import type { webhooks } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import { isId } from '@mp/kit';
import { assertWebhookUrlAllowed } from './delivery/target-guard.js';

export const RETRY_DEFAULTS = { maxRetries: 3, retryInterval: 5 } as const;
export const RETRY_LIMITS = { maxRetries: [0, 10], retryInterval: [1, 3600] } as const;
/** Longest webhook URL (the gateway's bound too). */
export const MAX_URL_LENGTH = 2000;
/** Most entries of `events` (each event type once is far fewer; repeats are dropped). */
export const MAX_EVENTS = 50;
/** Most entries of `project_ids` (the gateway's bound too); more projects are a tenant-wide webhook. */
export const MAX_PROJECT_IDS = 100;

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

/** What reading the payloads of these event types needs (ADR 0063); unknown types need nothing here. */
export function eventReadPermissions(events: readonly string[]): string[] {
  return [...new Set(events.filter(isEventType).map(readPermissionOf))];
}

/**
 * The event types to subscribe to, each once. A subscription hands the payloads to the receiver,
 * so the caller must hold what reading them needs (data:read for data.* and alarm.*, task:read,
 * project:read, report:read): 401004 on the first it does not, as granting a permission one does
 * not hold is refused.
 */
export function checkEvents(events: string[], ctx: Pick<CallerContext, 'permissions'>): string[] {
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
  events.forEach((e, i) => {
    const needed = readPermissionOf(e as (typeof EVENT_TYPES)[number]);
    if (!ctx.permissions.includes(needed)) {
      throw new DomainError('401004', {
        field: `events[${i}]`,
        detail: `Receiving ${e} needs ${needed}, which you do not hold: a webhook delivers only what its maker can read.`,
        suggestion: `Subscribe only to events you can read, or ask an administrator who holds ${needed} to create the webhook.`,
      });
    }
  });
  return [...new Set(events)];
}

/**
 * The projects a webhook is limited to, each once (ADR 0064). Only their shape is checked here;
 * that each exists in the caller's tenant and that the caller may read it is the projects
 * service's to say, and the gateway asks it as the caller before this service is called.
 */
export function checkProjectIds(ids: string[]): string[] {
  if (ids.length === 0) {
    throw new DomainError('422101', {
      field: 'project_ids',
      detail: 'project_ids must list at least one project.',
      suggestion: 'List the projects whose events the webhook should receive, or leave project_ids out for every project.',
    });
  }
  if (ids.length > MAX_PROJECT_IDS) {
    throw new DomainError('400003', {
      field: 'project_ids',
      detail: `project_ids lists at most ${MAX_PROJECT_IDS} projects.`,
      suggestion: 'Leave project_ids out to receive every project, or split the projects across webhooks.',
    });
  }
  ids.forEach((id, i) => {
    if (!isId('project', id)) {
      throw new DomainError('400004', {
        field: `project_ids[${i}]`,
        detail: `${excerpt(id)} is not a project id (prj_…).`,
        suggestion: 'Use project ids returned by GET /projects.',
      });
    }
  });
  return [...new Set(ids)];
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
