import { runMigrations } from '@mp/runtime';
import { parseWebhooksConfig } from './config.js';
import { migrations, SCHEMA } from './migrations.js';

// The chart's migration Job (pre-install, pre-upgrade): the webhooks schema brought to this version on
// MP_DATABASE_URL, before the new pods start (docs/deploy.md, "Upgrading").
await runMigrations('webhooks', parseWebhooksConfig(), SCHEMA, migrations);
