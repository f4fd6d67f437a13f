import { runMigrations } from '@mp/runtime';
import { parseProjectsConfig } from './config.js';
import { migrations, SCHEMA } from './migrations.js';

// The chart's migration Job (pre-install, pre-upgrade): the projects schema brought to this version on
// MP_DATABASE_URL, before the new pods start (docs/deploy.md, "Upgrading").
await runMigrations('projects', parseProjectsConfig(), SCHEMA, migrations);
