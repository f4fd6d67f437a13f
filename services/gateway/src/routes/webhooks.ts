import { z } from 'zod';
import type { ServiceClients } from '../clients.js';
import { ok } from '../envelope.js';
import { presentWebhooks as present } from '../presenters-webhooks.js';
import { enumText, instantText, integer, MAX_ITEMS, MAX_LENGTH, text } from '../bounds.js';
import { listData, pageOf, pageQuery, validate } from '../validate.js';
import * as api from '../api/resources.js';
import { route, type GatewayRouter } from '../api/route-spec.js';
import { DomainError, isDomainError } from '@mp/errors';
import { EVENT_TYPES } from '@mp/events';
import type { CallerContext } from '@mp/grpc';

// The webhooks service holds the policy's own range (400003); these keep the numbers in int32.
// The https rule and the event names are the webhooks service's to check (422103); the reference states them.
const webhookUrl = () => text(MAX_LENGTH.url).meta({ pattern: '^https://', description: 'An https:// URL; plain http is refused.' });
const eventName = () => text(MAX_LENGTH.identifier).meta({ enum: [...EVENT_TYPES] });

const retryPolicy = z.object({
  max_retries: integer(0, 1000).optional(),
  retry_interval: integer(0, 86_400).optional(),
});

const createBody = z.object({
  name: text(MAX_LENGTH.name),
  url: webhookUrl(),
  events: z.array(eventName()).max(MAX_ITEMS.events),
  // Absent: every project; the caller must be able to read each one listed.
  project_ids: z.array(text(MAX_LENGTH.identifier)).max(MAX_ITEMS.projectIds).optional(),
  retry_policy: retryPolicy.optional(),
  active: z.boolean().optional(),
});

const updateBody = z.object({
  name: text(MAX_LENGTH.name).optional(),
  url: webhookUrl().optional(),
  events: z.array(eventName()).max(MAX_ITEMS.events).optional(),
  // null lifts the limit (every project again).
  project_ids: z.array(text(MAX_LENGTH.identifier)).max(MAX_ITEMS.projectIds).nullable().optional(),
  retry_policy: retryPolicy.optional(),
  active: z.boolean().optional(),
});

// Values are checked by the webhooks service (400001 for an unknown status or event type, 400004
// for a from/to that is not ISO 8601, 400003 for to not after from).
const deliveriesQuery = pageQuery.extend({
  status: enumText().optional(),
  event_type: text(MAX_LENGTH.identifier).optional(),
  from: instantText().optional(),
  to: instantText().optional(),
});

// 0 to 7 days (the webhooks service's range, 400003).
const rotateBody = z.object({ grace_period_seconds: integer(0, 604_800).optional() });

const policyOf = (p: z.infer<typeof retryPolicy> | undefined, fallback = { maxRetries: 3, retryInterval: 5 }) =>
  p ? { maxRetries: p.max_retries ?? fallback.maxRetries, retryInterval: p.retry_interval ?? fallback.retryInterval } : undefined;

/**
 * A webhook limited to projects carries their events to its receiver, so its maker must be able to
 * read each one (ADR 0064). The projects service answers as for GET /projects/{id} by the caller
 * (400004, 404001, 403003, 403001), and the refusal names the entry of project_ids it concerns.
 */
async function requireReadableProjects(clients: ServiceClients, ids: string[] | null | undefined, caller: CallerContext): Promise<void> {
  if (!ids?.length) return;
  const unique = [...new Set(ids)];
  const outcomes = await Promise.allSettled(unique.map((id) => clients.projects.getProject({ id }, caller)));
  outcomes.forEach((o, k) => {
    if (o.status === 'fulfilled') return;
    const err: unknown = o.reason;
    if (!isDomainError(err)) throw err;
    throw new DomainError(err.code, { field: `project_ids[${ids.indexOf(unique[k]!)}]`, detail: err.detail, suggestion: err.suggestion });
  });
}

/**
 * A resend hands an event to the receiver again, so the caller must still be able to read the
 * event's project (ADR 0095): the webhooks service names the project, the projects service
 * answers as for GET /projects/{id} by the caller (404001 once it is deleted, 403001, 403003),
 * and the refusal names the delivery. Nothing is sent then.
 */
async function requireReadableDelivery(clients: ServiceClients, ref: { webhookId: string; deliveryId: string }, caller: CallerContext): Promise<void> {
  const { projectId } = await clients.webhooks.getDelivery(ref, caller);
  if (!projectId) return;
  try {
    await clients.projects.getProject({ id: projectId }, caller);
  } catch (err) {
    if (!isDomainError(err)) throw err;
    throw new DomainError(err.code, {
      field: 'delivery_id',
      detail: `Delivery ${ref.deliveryId} carries an event of project ${projectId}, which you cannot read (${err.detail}); it is not sent again.`,
      suggestion: 'Resend only deliveries of projects you can read (GET /projects/{project_id}).',
    });
  }
}

/**
 * The webhook endpoints: create, change, delete, test, deliveries, GET list/one, one delivery with
 * its attempts, resend and secret rotation (docs/rules.md#webhook-access). Auth: API key with system:admin.
 */
export function webhookRoutes(router: GatewayRouter, clients: ServiceClients): void {
  route(
    router,
    {
      method: 'post',
      path: '/webhooks',
      summary: 'Subscribe an HTTPS URL to event types; the signing secret is shown in this answer only.',
      tag: 'Webhooks',
      auth: 'api_key_or_user_bearer',
      permission: 'system:admin',
      rateLimit: 'tenant',
      body: createBody,
      response: api.webhookWithSecret,
      // project_ids: an unknown project, or one the caller may not read
      errors: ['403001', '404001'],
      idempotent: true,
    },
    async (ctx) => {
      const state = ctx.state;
      const b = validate(createBody, state.body ?? {}, 'body');
      const policy = policyOf(b.retry_policy);
      await requireReadableProjects(clients, b.project_ids, state.caller!);
      const created = await clients.webhooks.createWebhook(
        {
          name: b.name,
          url: b.url,
          events: b.events,
          ...(b.project_ids !== undefined ? { projectIds: { values: b.project_ids } } : {}),
          ...(policy ? { retryPolicy: policy } : {}),
          ...(b.active !== undefined ? { active: b.active } : {}),
        },
        state.caller!,
      );
      ok(ctx, { ...present.webhook(created.webhook!), secret: created.secret });
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/webhooks',
      summary: 'List webhooks.',
      tag: 'Webhooks',
      auth: 'api_key_or_user_bearer',
      permission: 'system:admin',
      rateLimit: 'tenant',
      query: pageQuery,
      response: api.listOf(api.webhook),
    },
    async (ctx) => {
      const state = ctx.state;
      const q = validate(pageQuery, ctx.query, 'query');
      const list = await clients.webhooks.listWebhooks({ page: pageOf(q) }, state.caller!);
      ok(ctx, listData(list.items, present.webhook, list.page));
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/webhooks/:webhook_id',
      summary: 'One webhook with its 24-hour delivery figures.',
      tag: 'Webhooks',
      auth: 'api_key_or_user_bearer',
      permission: 'system:admin',
      rateLimit: 'tenant',
      response: api.webhook,
    },
    async (ctx) => {
      const state = ctx.state;
      ok(ctx, present.webhook(await clients.webhooks.getWebhook({ id: ctx.params.webhook_id! }, state.caller!)));
    },
  );

  route(
    router,
    {
      method: 'put',
      path: '/webhooks/:webhook_id',
      summary: 'Change a webhook; only the fields sent change.',
      tag: 'Webhooks',
      auth: 'api_key_or_user_bearer',
      permission: 'system:admin',
      rateLimit: 'tenant',
      body: updateBody,
      response: api.webhook,
      // project_ids: an unknown project, or one the caller may not read
      errors: ['403001', '404001'],
    },
    async (ctx) => {
      const state = ctx.state;
      const b = validate(updateBody, state.body ?? {}, 'body');
      await requireReadableProjects(clients, b.project_ids, state.caller!);
      let retryPolicy;
      if (b.retry_policy) {
        // Unspecified sub-fields keep their current values.
        const current = await clients.webhooks.getWebhook({ id: ctx.params.webhook_id! }, state.caller!);
        retryPolicy = policyOf(b.retry_policy, current.retryPolicy ?? { maxRetries: 3, retryInterval: 5 });
      }
      const updated = await clients.webhooks.updateWebhook(
        {
          id: ctx.params.webhook_id!,
          ...(b.name !== undefined ? { name: b.name } : {}),
          ...(b.url !== undefined ? { url: b.url } : {}),
          ...(b.events !== undefined ? { events: { values: b.events } } : {}),
          ...(b.project_ids ? { projectIds: { values: b.project_ids } } : {}),
          allProjects: b.project_ids === null,
          ...(retryPolicy ? { retryPolicy } : {}),
          ...(b.active !== undefined ? { active: b.active } : {}),
        },
        state.caller!,
      );
      ok(ctx, present.webhook(updated));
    },
  );

  route(
    router,
    {
      method: 'delete',
      path: '/webhooks/:webhook_id',
      summary: 'Delete a webhook.',
      tag: 'Webhooks',
      auth: 'api_key_or_user_bearer',
      permission: 'system:admin',
      rateLimit: 'tenant',
      response: api.deleted(api.webhook),
    },
    async (ctx) => {
      const state = ctx.state;
      const deleted = await clients.webhooks.deleteWebhook({ id: ctx.params.webhook_id! }, state.caller!);
      ok(ctx, { ...present.webhook(deleted), deleted: true });
    },
  );

  route(
    router,
    {
      method: 'post',
      path: '/webhooks/:webhook_id/test',
      summary: "Send a test event (webhook.test) to the webhook's URL.",
      tag: 'Webhooks',
      auth: 'api_key_or_user_bearer',
      permission: 'system:admin',
      rateLimit: 'tenant',
      response: api.delivery,
    },
    async (ctx) => {
      const state = ctx.state;
      ok(ctx, present.delivery(await clients.webhooks.testWebhook({ id: ctx.params.webhook_id! }, state.caller!)));
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/webhooks/:webhook_id/deliveries',
      summary: "List a webhook's deliveries, newest first.",
      tag: 'Webhooks',
      auth: 'api_key_or_user_bearer',
      permission: 'system:admin',
      rateLimit: 'tenant',
      query: deliveriesQuery,
      response: api.listOf(api.delivery),
    },
    async (ctx) => {
      const state = ctx.state;
      const q = validate(deliveriesQuery, ctx.query, 'query');
      const list = await clients.webhooks.listDeliveries(
        {
          webhookId: ctx.params.webhook_id!,
          page: pageOf(q),
          ...(q.status !== undefined ? { status: q.status } : {}),
          ...(q.event_type !== undefined ? { eventType: q.event_type } : {}),
          ...(q.from !== undefined ? { from: q.from } : {}),
          ...(q.to !== undefined ? { to: q.to } : {}),
        },
        state.caller!,
      );
      ok(ctx, listData(list.items, present.delivery, list.page));
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/webhooks/:webhook_id/deliveries/:delivery_id',
      summary: 'One delivery with its attempts.',
      tag: 'Webhooks',
      auth: 'api_key_or_user_bearer',
      permission: 'system:admin',
      rateLimit: 'tenant',
      response: api.deliveryWithAttempts,
    },
    async (ctx) => {
      const state = ctx.state;
      const detail = await clients.webhooks.getDelivery({ webhookId: ctx.params.webhook_id!, deliveryId: ctx.params.delivery_id! }, state.caller!);
      ok(ctx, { ...present.delivery(detail.delivery!), attempts: detail.attempts.map(present.deliveryAttempt) });
    },
  );

  route(
    router,
    {
      method: 'post',
      path: '/webhooks/:webhook_id/deliveries/:delivery_id/resend',
      summary: 'Send a delivery again.',
      tag: 'Webhooks',
      auth: 'api_key_or_user_bearer',
      permission: 'system:admin',
      rateLimit: 'tenant',
      response: api.delivery,
      // the event's project deleted, or one the caller may not read; or (403001) the webhook no
      // longer takes the project's events
      errors: ['403001', '404001'],
    },
    async (ctx) => {
      const state = ctx.state;
      const ref = { webhookId: ctx.params.webhook_id!, deliveryId: ctx.params.delivery_id! };
      await requireReadableDelivery(clients, ref, state.caller!);
      ok(ctx, present.delivery(await clients.webhooks.resendDelivery(ref, state.caller!)));
    },
  );

  route(
    router,
    {
      method: 'post',
      path: '/webhooks/:webhook_id/rotate-secret',
      summary: 'Rotate the signing secret; the new one signs after the grace period.',
      tag: 'Webhooks',
      auth: 'api_key_or_user_bearer',
      permission: 'system:admin',
      rateLimit: 'tenant',
      body: rotateBody,
      response: api.webhookWithSecret,
    },
    async (ctx) => {
      const state = ctx.state;
      const b = validate(rotateBody, state.body ?? {}, 'body');
      const rotated = await clients.webhooks.rotateSecret(
        { id: ctx.params.webhook_id!, ...(b.grace_period_seconds !== undefined ? { gracePeriodSeconds: b.grace_period_seconds } : {}) },
        state.caller!,
      );
      ok(ctx, { ...present.webhook(rotated.webhook!), secret: rotated.secret });
    },
  );
}
