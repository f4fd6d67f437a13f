import { webhooks } from '@mp/contracts';
import { bindService, type CallerPolicy } from '@mp/grpc';
import type { WebhooksDeps } from './deps.js';
import { createWebhook } from './use-cases/create-webhook.js';
import { deleteWebhook } from './use-cases/delete-webhook.js';
import { getDelivery } from './use-cases/get-delivery.js';
import { getWebhook } from './use-cases/get-webhook.js';
import { listDeliveries } from './use-cases/list-deliveries.js';
import { listWebhooks } from './use-cases/list-webhooks.js';
import { resendDelivery } from './use-cases/resend-delivery.js';
import { rotateSecret } from './use-cases/rotate-secret.js';
import { testWebhook } from './use-cases/test-webhook.js';
import { updateWebhook } from './use-cases/update-webhook.js';
import { describeAckLink, redeemAckLink } from './notifications/ack-links.js';
import { createRule } from './notifications/create-rule.js';
import { deleteRule } from './notifications/delete-rule.js';
import { getRule } from './notifications/get-rule.js';
import { listMails } from './notifications/list-mails.js';
import { listRules } from './notifications/list-rules.js';
import type { NotificationDeps } from './notifications/settings.js';

/** Only the gateway calls webhooks. */
const CALLERS: CallerPolicy = { gateway: '*' };

export function webhooksBinding(deps: WebhooksDeps, notifications: NotificationDeps) {
  return bindService<webhooks.WebhooksServer>(
    'mp.webhooks.Webhooks',
    webhooks.WebhooksService,
    {
      createWebhook: (req, ctx) => createWebhook(deps, req, ctx),
      updateWebhook: (req, ctx) => updateWebhook(deps, req, ctx),
      deleteWebhook: (req, ctx) => deleteWebhook(deps, req, ctx),
      getWebhook: (req, ctx) => getWebhook(deps, req, ctx),
      listWebhooks: (req, ctx) => listWebhooks(deps, req, ctx),
      testWebhook: (req, ctx) => testWebhook(deps, req, ctx),
      listDeliveries: (req, ctx) => listDeliveries(deps, req, ctx),
      getDelivery: (req, ctx) => getDelivery(deps, req, ctx),
      resendDelivery: (req, ctx) => resendDelivery(deps, req, ctx),
      rotateSecret: (req, ctx) => rotateSecret(deps, req, ctx),
      createNotificationRule: (req, ctx) => createRule(notifications, req, ctx),
      listNotificationRules: (req, ctx) => listRules(notifications, req, ctx),
      getNotificationRule: (req, ctx) => getRule(notifications, req, ctx),
      deleteNotificationRule: (req, ctx) => deleteRule(notifications, req, ctx),
      listNotificationMails: (req, ctx) => listMails(notifications, req, ctx),
      describeAckLink: (req, ctx) => describeAckLink(notifications, req, ctx),
      redeemAckLink: (req, ctx) => redeemAckLink(notifications, req, ctx),
    },
    CALLERS,
  );
}
