import type { Migration } from '@mp/db';

/**
 * Alarms (docs/adr/0024-alarms.md): one row per alarm, its history, and the
 * points whose readings the stale-data check watches.
 */
export const alarmsMigration: Migration = {
  id: '004_alarms',
  sql: `
    CREATE TABLE alarms (
      id text PRIMARY KEY,
      tenant_id text NOT NULL,
      environment text NOT NULL,
      project_id text NOT NULL,
      point_id text NOT NULL,
      -- threshold | rate | stale
      rule text NOT NULL,
      -- warning | alarm; only rises while the alarm is active
      level text NOT NULL,
      -- open | acknowledged | cleared
      status text NOT NULL,
      reason text NOT NULL,
      -- the rule's limits (mm, mm/day or seconds) and the value that broke them
      threshold_warning double precision,
      threshold_alarm double precision,
      value double precision,
      first_data_id text,
      last_data_id text,
      last_measured_at timestamptz,
      reading_count integer NOT NULL DEFAULT 1,
      -- readings back under the limits since the last one over them (auto-clear counts these)
      normal_count integer NOT NULL DEFAULT 0,
      opened_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      acknowledged_at timestamptz,
      acknowledged_by text,
      acknowledge_comment text,
      cleared_at timestamptz,
      -- null when the readings cleared it
      cleared_by text,
      clear_comment text,
      version integer NOT NULL DEFAULT 1
    );
    -- At most one active alarm per point and rule, whichever replica writes: the constraint
    -- that keeps two concurrent writes from opening two.
    CREATE UNIQUE INDEX alarms_active ON alarms (point_id, rule) WHERE status <> 'cleared';
    CREATE INDEX alarms_project ON alarms (project_id, opened_at DESC, id DESC);

    CREATE TABLE alarm_history (
      seq bigserial PRIMARY KEY,
      alarm_id text NOT NULL REFERENCES alarms (id) ON DELETE CASCADE,
      at timestamptz NOT NULL,
      -- opened | escalated | acknowledged | cleared
      action text NOT NULL,
      level text NOT NULL,
      status text NOT NULL,
      -- principal (usr_… / key_…) for acknowledge and clear; null for the readings
      actor_type text,
      actor_id text,
      comment text,
      data_id text,
      reason text
    );
    CREATE INDEX alarm_history_alarm ON alarm_history (alarm_id, seq);

    -- Points the stale-data check watches: what an event about them needs, and when they
    -- next become overdue. Replicas claim due rows with FOR UPDATE SKIP LOCKED.
    CREATE TABLE alarm_watch (
      point_id text PRIMARY KEY,
      tenant_id text NOT NULL,
      environment text NOT NULL,
      project_id text NOT NULL,
      project_name text NOT NULL,
      point_name text NOT NULL,
      sensor_type text NOT NULL,
      warning double precision NOT NULL,
      alarm double precision NOT NULL,
      expected_interval_s integer NOT NULL,
      stale_factor integer NOT NULL,
      last_measured_at timestamptz NOT NULL,
      next_check_at timestamptz
    );
    CREATE INDEX alarm_watch_due ON alarm_watch (next_check_at) WHERE next_check_at IS NOT NULL;
  `,
};

/**
 * The alarm inbox and the alarm counts of project and point lists (docs/adr/0087, 0088): the
 * tenant's alarms newest first, and the active alarms of a project by level (the partial index
 * stays as small as the alarms still open, however long the history grows).
 */
export const alarmInboxMigration: Migration = {
  id: '011_alarm_inbox',
  sql: `
    CREATE INDEX alarms_tenant ON alarms (tenant_id, environment, opened_at DESC, id DESC);
    CREATE INDEX alarms_project_active ON alarms (project_id, level, status) WHERE status <> 'cleared';
  `,
};
