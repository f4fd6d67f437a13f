import { z } from 'zod';
import type { Middleware } from 'koa';
import { ALARM_LEVELS, NOTIFICATION_STATUSES } from '@mp/contracts';
import { isDomainError } from '@mp/errors';
import { anonymousContext } from '@mp/grpc';
import type { ServiceClients } from '../clients.js';
import { renderAckConfirmation, renderAckError, renderAcknowledged } from '../ack-page.js';
import { enumText, integer, MAX_LENGTH, text } from '../bounds.js';
import { ok } from '../envelope.js';
import { presentNotifications as present } from '../presenters-notifications.js';
import { listData, pageOf, pageQuery, validate } from '../validate.js';
import * as api from '../api/resources.js';
import { aroundGuards, route, type GatewayRouter } from '../api/route-spec.js';

const MAX_RECIPIENTS = 20;
const WEEK = 7 * 86_400;
const recipients = z.array(z.object({ email: text(254) })).max(MAX_RECIPIENTS);

// Values are checked by the webhooks service: the levels (422103), the addresses (422103), the
// intervals' lower bound, which the operator sets (MP_NOTIFY_MIN_INTERVAL_SECONDS, 400003).
const createBody = z.object({
  name: text(MAX_LENGTH.name),
  levels: z.array(enumText(ALARM_LEVELS)).max(ALARM_LEVELS.length * 2),
  recipients,
  reminder_interval_seconds: integer(1, WEEK).nullable().optional(),
  escalation: z
    .object({ after_seconds: integer(1, WEEK), recipients })
    .nullable()
    .optional(),
});

const deliveriesQuery = pageQuery.extend({ status: enumText(NOTIFICATION_STATUSES).optional() });

// The link as the mail gives it (`ntf_….<expiry>.<MAC>`, about 80 characters); the webhooks service checks it.
const ackParams = z.object({ token: text(200) });
const ackForm = z.object({ comment: text(MAX_LENGTH.remark).optional() });

/** Answers every refusal of the acknowledge pages with an HTML page. */
const htmlErrors: Middleware = async (ctx, next) => {
  try {
    await next();
  } catch (err) {
    if (!isDomainError(err)) throw err;
    renderAckError(ctx, err);
  }
};

/**
 * Notification rules (docs/rules.md#notifications, ADR 0090) and the acknowledge link pages of
 * their mails. Reading rules needs project:read, changing them project:write, and the project's
 * membership (a viewer may read only); making one also needs data:read and data:write (the
 * webhooks service checks that, 401004), since its mails carry readings and acknowledge alarms.
 */
export function notificationRoutes(router: GatewayRouter, clients: ServiceClients): void {
  route(
    router,
    {
      method: 'post',
      path: '/projects/:project_id/notification-rules',
      summary: "E-mail people when the project's alarms open or rise, remind them while nobody acknowledges, and escalate after a delay.",
      tag: 'Notifications',
      auth: 'api_key_or_bearer',
      permission: 'project:write',
      rateLimit: 'tenant',
      body: createBody,
      response: api.notificationRule,
      errors: ['403001', '403002', '404001', '422105'],
      idempotent: true,
    },
    async (ctx) => {
      const state = ctx.state;
      const b = validate(createBody, state.body ?? {}, 'body');
      const rule = await clients.webhooks.createNotificationRule(
        {
          projectId: ctx.params.project_id!,
          name: b.name,
          levels: b.levels,
          recipients: b.recipients,
          ...(b.reminder_interval_seconds != null ? { reminderIntervalSeconds: b.reminder_interval_seconds } : {}),
          ...(b.escalation ? { escalation: { afterSeconds: b.escalation.after_seconds, recipients: b.escalation.recipients } } : {}),
        },
        state.caller!,
      );
      ok(ctx, present.rule(rule));
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/projects/:project_id/notification-rules',
      summary: "List a project's notification rules; mail_configured says whether mail leaves at all.",
      tag: 'Notifications',
      auth: 'api_key_or_bearer',
      permission: 'project:read',
      rateLimit: 'tenant',
      query: pageQuery,
      response: api.notificationRuleList,
      errors: ['403001', '404001'],
    },
    async (ctx) => {
      const state = ctx.state;
      const q = validate(pageQuery, ctx.query, 'query');
      const list = await clients.webhooks.listNotificationRules({ projectId: ctx.params.project_id!, page: pageOf(q) }, state.caller!);
      ok(ctx, { ...listData(list.items, present.rule, list.page), mail_configured: list.mailConfigured });
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/notification-rules/:rule_id',
      summary: 'One notification rule.',
      tag: 'Notifications',
      auth: 'api_key_or_bearer',
      permission: 'project:read',
      rateLimit: 'tenant',
      response: api.notificationRule,
      errors: ['403001', '404020'],
    },
    async (ctx) => {
      ok(ctx, present.rule(await clients.webhooks.getNotificationRule({ id: ctx.params.rule_id! }, ctx.state.caller!)));
    },
  );

  route(
    router,
    {
      method: 'delete',
      path: '/notification-rules/:rule_id',
      summary: 'Delete a notification rule: no more mails, reminders or escalations; links of its mails stop working.',
      tag: 'Notifications',
      auth: 'api_key_or_bearer',
      permission: 'project:write',
      rateLimit: 'tenant',
      response: api.deleted(api.notificationRule),
      errors: ['403001', '403002', '404020'],
    },
    async (ctx) => {
      const rule = await clients.webhooks.deleteNotificationRule({ id: ctx.params.rule_id! }, ctx.state.caller!);
      ok(ctx, { ...present.rule(rule), deleted: true as const });
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/notification-rules/:rule_id/deliveries',
      summary: "The rule's delivery log: every mail, its recipient, status, attempts and the SMTP server's answer, newest first.",
      tag: 'Notifications',
      auth: 'api_key_or_bearer',
      permission: 'project:read',
      rateLimit: 'tenant',
      query: deliveriesQuery,
      response: api.listOf(api.notificationDelivery),
      errors: ['403001', '404020'],
    },
    async (ctx) => {
      const state = ctx.state;
      const q = validate(deliveriesQuery, ctx.query, 'query');
      const list = await clients.webhooks.listNotificationMails(
        { ruleId: ctx.params.rule_id!, page: pageOf(q), ...(q.status !== undefined ? { status: q.status } : {}) },
        state.caller!,
      );
      ok(ctx, listData(list.items, present.delivery, list.page));
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/alarm-ack/:token',
      summary: "The confirmation page of a notification mail's acknowledge link (HTML, no script); changes nothing.",
      tag: 'Notifications',
      auth: 'none',
      rateLimit: 'authentication',
      params: ackParams,
      answer: 'html',
      errors: ['401020', '404021', '409020'],
    },
    aroundGuards(htmlErrors),
    async (ctx) => {
      const state = ctx.state;
      const p = validate(ackParams, ctx.params, 'path');
      renderAckConfirmation(ctx, await clients.webhooks.describeAckLink({ token: p.token }, anonymousContext(state.requestId, state.environment)));
    },
  );

  route(
    router,
    {
      method: 'post',
      path: '/alarm-ack/:token',
      summary: 'Acknowledge the alarm as the mail’s recipient (the confirmation form; form-encoded). Each link works once, until it expires.',
      tag: 'Notifications',
      auth: 'none',
      rateLimit: 'authentication',
      form: true,
      params: ackParams,
      body: ackForm,
      answer: 'html',
      errors: ['401020', '404021', '409010', '409020'],
    },
    aroundGuards(htmlErrors),
    async (ctx) => {
      const state = ctx.state;
      const p = validate(ackParams, ctx.params, 'path');
      const form = validate(ackForm, state.body ?? {}, 'body');
      const link = await clients.webhooks.redeemAckLink(
        { token: p.token, ...(form.comment ? { comment: form.comment } : {}) },
        anonymousContext(state.requestId, state.environment),
      );
      renderAcknowledged(ctx, link);
    },
  );
}
