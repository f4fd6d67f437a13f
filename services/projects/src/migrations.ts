import type { Migration } from '@mp/db';
import { outboxMigration } from '@mp/events';

export const SCHEMA = 'projects';

export const migrations: Migration[] = [
  outboxMigration,
  {
    id: '001_projects',
    sql: `
      CREATE TABLE projects (
        id text PRIMARY KEY,
        tenant_id text NOT NULL,
        environment text NOT NULL,
        number text NOT NULL,
        name text NOT NULL,
        description text,
        status text NOT NULL DEFAULT 'not_started',
        start_date date,
        end_date date,
        created_by text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        version integer NOT NULL DEFAULT 1,
        -- spec 409001: a project number is unique within a tenant's environment
        CONSTRAINT projects_number_unique UNIQUE (tenant_id, environment, number)
      );
      CREATE INDEX projects_list ON projects (tenant_id, environment, created_at DESC, id DESC);
    `,
  },
];
