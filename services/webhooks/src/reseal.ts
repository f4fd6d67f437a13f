import { runReseal } from '@mp/runtime';
import { parseWebhooksConfig } from './config.js';
import { migrations, SCHEMA } from './migrations.js';

// `npm run secrets:reseal` (with the identity one): every secret the webhooks service stores
// sealed, rewritten under the newest key of MP_SECRETS_KEY (ADR 0047). The service may keep running.
await runReseal('webhooks', parseWebhooksConfig(), SCHEMA, migrations, [
  { table: 'webhooks', key: ['id'], column: 'secret_sealed' },
  { table: 'webhooks', key: ['id'], column: 'next_secret_sealed' },
  { table: 'idempotency_keys', key: ['tenant_id', 'environment', 'key'], column: 'response', json: true },
]);
