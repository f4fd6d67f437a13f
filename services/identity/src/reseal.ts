import { runReseal } from '@mp/runtime';
import { parseIdentityConfig } from './config.js';
import { migrations, SCHEMA } from './migrations.js';

// `npm run secrets:reseal` (with the webhooks one): every secret identity stores sealed, rewritten
// under the newest key of MP_SECRETS_KEY (ADR 0047). The service may keep running meanwhile.
await runReseal('identity', parseIdentityConfig(), SCHEMA, migrations, [
  { table: 'signing_keys', key: ['kid'], column: 'private_jwk_sealed' },
  { table: 'idempotency_keys', key: ['tenant_id', 'environment', 'key'], column: 'response', json: true },
]);
