import type { Migration } from '@mp/db';
import { outboxMigrations } from '@mp/events';

export const SCHEMA = 'projects';

export const migrations: Migration[] = [
  ...outboxMigrations,
  // idempotency_keys is made by 002 below, written before @mp/db had idempotencyMigration; the
  // shared createOnce uses it as it is, so that migration is not listed here.
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
        -- 409001: a project number is unique within a tenant's environment
        CONSTRAINT projects_number_unique UNIQUE (tenant_id, environment, number)
      );
      CREATE INDEX projects_list ON projects (tenant_id, environment, created_at DESC, id DESC);
    `,
  },
  {
    id: '002_projects_domain',
    sql: `
      -- Plausible coordinate range {min_x,max_x,min_y,max_y,min_z,max_z} in metres; NULL = no check.
      ALTER TABLE projects ADD COLUMN bounds jsonb;
      CREATE INDEX projects_status ON projects (tenant_id, environment, status);

      CREATE TABLE project_members (
        project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
        tenant_id text NOT NULL,
        environment text NOT NULL,
        user_id text NOT NULL,
        role text NOT NULL CHECK (role IN ('owner', 'editor', 'viewer')),
        -- Display data for events (changed_by); the phone is kept masked only.
        name text,
        phone_masked text,
        added_by text,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (project_id, user_id)
      );
      CREATE INDEX project_members_user ON project_members (tenant_id, environment, user_id);

      CREATE TABLE devices (
        id text PRIMARY KEY,
        tenant_id text NOT NULL,
        environment text NOT NULL,
        serial_number text NOT NULL,
        name text,
        model text NOT NULL,
        type text NOT NULL,
        manufacturer text,
        status text NOT NULL,
        calibrated_at date,
        calibration_due_at date,
        description text,
        created_by text,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        version integer NOT NULL DEFAULT 1,
        CONSTRAINT devices_serial_unique UNIQUE (tenant_id, environment, serial_number)
      );
      CREATE INDEX devices_list ON devices (tenant_id, environment, created_at DESC, id DESC);

      CREATE TABLE points (
        id text PRIMARY KEY,
        project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
        tenant_id text NOT NULL,
        environment text NOT NULL,
        number text NOT NULL,
        name text NOT NULL,
        sensor_type text NOT NULL,
        ref_x double precision NOT NULL,
        ref_y double precision NOT NULL,
        ref_z double precision NOT NULL,
        warning_threshold double precision NOT NULL,
        alarm_threshold double precision NOT NULL,
        abrupt_change_limit double precision,
        precision_mm double precision,
        -- Deleting a device detaches it from its points.
        device_id text REFERENCES devices (id) ON DELETE SET NULL,
        active boolean NOT NULL DEFAULT true,
        description text,
        created_by text,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        version integer NOT NULL DEFAULT 1,
        -- 409002: a point number is unique within its project
        CONSTRAINT points_number_unique UNIQUE (project_id, number)
      );
      CREATE INDEX points_list ON points (project_id, created_at DESC, id DESC);
      CREATE INDEX points_device ON points (device_id) WHERE device_id IS NOT NULL;

      CREATE TABLE tasks (
        id text PRIMARY KEY,
        project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
        tenant_id text NOT NULL,
        environment text NOT NULL,
        name text NOT NULL,
        description text,
        status text NOT NULL,
        priority text NOT NULL,
        assignee_id text,
        due_at timestamptz,
        -- When the overdue sweep flagged the task and wrote task.overdue; reset when due_at moves.
        overdue_at timestamptz,
        completed_at timestamptz,
        created_by text,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        version integer NOT NULL DEFAULT 1
      );
      CREATE INDEX tasks_list ON tasks (project_id, created_at DESC, id DESC);
      CREATE INDEX tasks_overdue_sweep ON tasks (due_at) WHERE overdue_at IS NULL AND status NOT IN ('completed', 'cancelled');

      -- Idempotency-Key of creating writes: the first response, kept 24 h (docs/rules.md#idempotency).
      CREATE TABLE idempotency_keys (
        tenant_id text NOT NULL,
        environment text NOT NULL,
        key text NOT NULL,
        request_hash text NOT NULL,
        response jsonb,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (tenant_id, environment, key)
      );
      CREATE INDEX idempotency_keys_age ON idempotency_keys (created_at);
    `,
  },
  {
    id: '003_ingest_version',
    sql: `
      -- Bumped in the transaction of every change monitoring-data's ingest context depends on
      -- (project status, dates, bounds; points; members), and handed to monitoring-data before
      -- that transaction commits, so that a cached context older than it is never used (ADR 0022).
      ALTER TABLE projects ADD COLUMN ingest_version bigint NOT NULL DEFAULT 1;
    `,
  },
  {
    // Per-point alarm rules (monitoring-data's alarms, docs/adr/0024-alarms.md); null: the defaults.
    id: '010_point_alarm_rules',
    sql: `ALTER TABLE points ADD COLUMN alarm_rules jsonb`,
  },
  {
    // The zone the console and reports show a project's times in (ADR 0107); existing projects
    // read as before, in UTC.
    id: '012_project_time_zone',
    sql: `ALTER TABLE projects ADD COLUMN time_zone text NOT NULL DEFAULT 'UTC'`,
  },
  {
    // Instruments (docs/instruments.md): points of types without coordinates have no
    // reference; trigger levels on any channel of the point's type.
    id: '020_point_instruments',
    sql: `
      ALTER TABLE points ALTER COLUMN ref_x DROP NOT NULL, ALTER COLUMN ref_y DROP NOT NULL, ALTER COLUMN ref_z DROP NOT NULL;
      ALTER TABLE points ADD COLUMN trigger_levels jsonb;
    `,
  },
  {
    // Dated calibrations (ADR 0116) and derived channels (ADR 0117) of instrument points.
    id: '021_calibrations_derived_channels',
    sql: `
      ALTER TABLE points ADD COLUMN derived_channels jsonb;
      CREATE TABLE point_calibrations (
        id text PRIMARY KEY,
        point_id text NOT NULL REFERENCES points (id) ON DELETE CASCADE,
        tenant_id text NOT NULL,
        environment text NOT NULL,
        method text NOT NULL,
        -- the method's coefficients by their API names (gauge_factor, zero_reading, …)
        coefficients jsonb NOT NULL,
        valid_from timestamptz NOT NULL,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL,
        CONSTRAINT point_calibrations_valid_from UNIQUE (point_id, valid_from)
      );
    `,
  },
  {
    // A project's site plan (ADR 0121): the drawing (PNG or JPEG, kept whole: at most 3 MiB) and
    // the points placed on it by hand, at fractions of its width and height. Both go with the
    // project; a placement goes with its point.
    id: '030_site_plans',
    sql: `
      CREATE TABLE site_plans (
        project_id text PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
        content_type text NOT NULL,
        width integer NOT NULL,
        height integer NOT NULL,
        sha256 text NOT NULL,
        image bytea NOT NULL,
        updated_by text NOT NULL,
        updated_at timestamptz NOT NULL
      );
      CREATE TABLE site_plan_positions (
        project_id text NOT NULL REFERENCES site_plans (project_id) ON DELETE CASCADE,
        point_id text NOT NULL REFERENCES points (id) ON DELETE CASCADE,
        x double precision NOT NULL CHECK (x >= 0 AND x <= 1),
        y double precision NOT NULL CHECK (y >= 0 AND y <= 1),
        PRIMARY KEY (project_id, point_id)
      );
      CREATE INDEX site_plan_positions_point ON site_plan_positions (point_id);
    `,
  },
];
