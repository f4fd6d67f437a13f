import { idempotencyMigration, type Migration } from '@mp/db';
import { outboxMigrations } from '@mp/events';

export const SCHEMA = 'reports';

export const migrations: Migration[] = [
  ...outboxMigrations,
  // Idempotency-Key of POST /templates and POST /projects/{id}/reports (ADR 0012).
  idempotencyMigration,
  {
    id: '001_reports',
    sql: `
      CREATE TABLE templates (
        id text PRIMARY KEY,
        tenant_id text NOT NULL,
        environment text NOT NULL,
        name text NOT NULL,
        description text,
        sections text[] NOT NULL,
        point_ids text[] NOT NULL,
        formats text[] NOT NULL,
        created_by text,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL,
        deleted_at timestamptz,
        version integer NOT NULL DEFAULT 1
      );
      CREATE INDEX templates_by_tenant ON templates (tenant_id, environment, created_at DESC, id DESC) WHERE deleted_at IS NULL;

      -- A report is also its own generation job (ADR 0026): status 'generating' rows are claimed
      -- with FOR UPDATE SKIP LOCKED and leased; attempt counts the claims, and only the holder of
      -- the current attempt may finish it.
      CREATE TABLE reports (
        id text PRIMARY KEY,
        tenant_id text NOT NULL,
        environment text NOT NULL,
        project_id text NOT NULL,
        project_name text NOT NULL,
        template_id text NOT NULL,
        -- the template as it was when the report was asked for: a later edit changes no report
        template jsonb NOT NULL,
        title text NOT NULL,
        period_from timestamptz(3) NOT NULL,
        period_to timestamptz(3) NOT NULL,
        time_zone text NOT NULL,
        -- who asked: generation reads the project's data as this principal (ADR 0025)
        requester jsonb NOT NULL,
        status text NOT NULL,
        attempt integer NOT NULL DEFAULT 0,
        lease_until timestamptz,
        data_as_of timestamptz(3),
        record_count integer NOT NULL DEFAULT 0,
        generated_at timestamptz(3),
        failure_code text,
        failure_detail text,
        reviewed_by text,
        reviewed_at timestamptz(3),
        review_text text,
        created_by text,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      );
      CREATE INDEX reports_by_tenant ON reports (tenant_id, environment, created_at DESC, id DESC);
      CREATE INDEX reports_by_project ON reports (project_id, created_at DESC, id DESC);
      CREATE INDEX reports_waiting ON reports (created_at) WHERE status = 'generating';

      -- The documents, in parts of at most 1 MiB written while rendering (a document is never
      -- held whole in memory). Parts belong to one attempt: a crashed attempt's parts are removed
      -- when another attempt finishes the report.
      CREATE TABLE report_file_parts (
        report_id text NOT NULL REFERENCES reports (id),
        attempt integer NOT NULL,
        format text NOT NULL,
        part integer NOT NULL,
        bytes bytea NOT NULL,
        PRIMARY KEY (report_id, attempt, format, part)
      );
      -- Already compressed (PDF streams, XLSX) or cheap to send: stored as they are.
      ALTER TABLE report_file_parts ALTER COLUMN bytes SET STORAGE EXTERNAL;

      CREATE TABLE report_files (
        report_id text NOT NULL REFERENCES reports (id),
        format text NOT NULL,
        attempt integer NOT NULL,
        size_bytes bigint NOT NULL,
        sha256 text NOT NULL,
        part_size integer NOT NULL,
        PRIMARY KEY (report_id, format)
      );
    `,
  },
  {
    // Claims take tenants in turn (ADR 0071): when each tenant's reports were last claimed, and
    // each tenant's waiting ones, are read by key.
    id: '002_fair_claims',
    sql: `
      ALTER TABLE reports ADD COLUMN claimed_at timestamptz(3);
      CREATE INDEX reports_claims_by_tenant ON reports (tenant_id, claimed_at);
      CREATE INDEX reports_generating_by_tenant ON reports (tenant_id, created_at) WHERE status = 'generating';
    `,
  },
  {
    // Reports a client can receive (ADR 0107): a template's time zone, the tenant's name and
    // logo on every page (ADR 0108), and scheduled reports (ADR 0109).
    id: '003_client_reports',
    sql: `
      ALTER TABLE templates ADD COLUMN time_zone text;
      ALTER TABLE reports ADD COLUMN tenant_name text;
      ALTER TABLE reports ADD COLUMN schedule_id text;
      -- when the scheduled report was handed to the mailer (null: not yet, or no mail configured)
      ALTER TABLE reports ADD COLUMN mailed_at timestamptz(3);
      -- one report per schedule and period, whichever replica's scheduler asks first
      CREATE UNIQUE INDEX reports_one_per_schedule_period ON reports (schedule_id, period_from) WHERE schedule_id IS NOT NULL;
      CREATE INDEX reports_to_mail ON reports (generated_at) WHERE schedule_id IS NOT NULL AND mailed_at IS NULL;

      CREATE TABLE tenant_logos (
        tenant_id text NOT NULL,
        environment text NOT NULL,
        content_type text NOT NULL,
        image bytea NOT NULL,
        sha256 text NOT NULL,
        width integer NOT NULL,
        height integer NOT NULL,
        updated_by text,
        updated_at timestamptz(3) NOT NULL,
        PRIMARY KEY (tenant_id, environment)
      );

      CREATE TABLE report_schedules (
        id text PRIMARY KEY,
        tenant_id text NOT NULL,
        environment text NOT NULL,
        project_id text NOT NULL,
        project_name text NOT NULL,
        template_id text NOT NULL,
        frequency text NOT NULL,
        time_zone text NOT NULL,
        recipients text[] NOT NULL,
        tenant_name text,
        -- who asked: each period's report reads the project as this principal (as a report does)
        requester jsonb NOT NULL,
        next_run_at timestamptz(3) NOT NULL,
        last_report_id text,
        last_run_at timestamptz(3),
        last_error text,
        created_by text,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL,
        deleted_at timestamptz(3)
      );
      CREATE INDEX report_schedules_due ON report_schedules (next_run_at) WHERE deleted_at IS NULL;
      CREATE INDEX report_schedules_by_tenant ON report_schedules (tenant_id, environment, created_at DESC, id DESC) WHERE deleted_at IS NULL;
    `,
  },
];
