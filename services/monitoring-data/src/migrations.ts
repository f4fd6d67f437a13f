import { idempotencyMigration, type Migration } from '@mp/db';
import { outboxMigrations } from '@mp/events';
import { alarmInboxMigration, alarmsMigration } from './alarms/migration.js';
import { rebuildChannelStatements, rebuildStatements } from './rollups.js';
import { RECOMPUTE_CAUSES_MIGRATION, RECOMPUTE_MIGRATION } from './recompute-schedule.js';
import { importRangesMigration, importsMigration } from './imports/migration.js';

export const SCHEMA = 'monitoring_data';

export const migrations: Migration[] = [
  ...outboxMigrations,
  // Idempotency-Key of the data write and the batch upload (ADR 0012).
  idempotencyMigration,
  {
    id: '001_data_records',
    sql: `
      -- One row per measurement, partitioned by month of measured_at (partitions.ts creates them
      -- on demand). Unique and primary keys of a partitioned table must contain the partition key,
      -- so the natural key (point, instant) is the unique constraint that makes 409003 race-free.
      CREATE TABLE data_records (
        id text NOT NULL,
        tenant_id text NOT NULL,
        environment text NOT NULL,
        project_id text NOT NULL,
        point_id text NOT NULL,
        measured_at timestamptz NOT NULL,
        -- minutes east of UTC that measured_at was sent with; responses and events keep it
        utc_offset smallint NOT NULL,
        x double precision,
        y double precision,
        z double precision,
        dx double precision,
        dy double precision,
        dz double precision,
        status text NOT NULL,
        quality_flag text NOT NULL DEFAULT 'valid',
        remark text,
        batch_id text,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        version integer NOT NULL DEFAULT 1,
        CONSTRAINT data_records_point_time UNIQUE (point_id, measured_at)
      ) PARTITION BY RANGE (measured_at);
      -- ids start with their creation time, so this index grows at its right edge
      CREATE INDEX data_records_id ON data_records (id);
      CREATE INDEX data_records_project_time ON data_records (project_id, measured_at);

      -- Points that have data, per project: the list behind "latest value per point".
      CREATE TABLE data_points (
        point_id text PRIMARY KEY,
        project_id text NOT NULL,
        tenant_id text NOT NULL,
        environment text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX data_points_project ON data_points (project_id, point_id);

      CREATE TABLE batches (
        id text PRIMARY KEY,
        tenant_id text NOT NULL,
        environment text NOT NULL,
        project_id text NOT NULL,
        status text NOT NULL DEFAULT 'pending',
        total_count integer NOT NULL,
        processed_count integer NOT NULL DEFAULT 0,
        accepted_count integer NOT NULL DEFAULT 0,
        rejected_count integer NOT NULL DEFAULT 0,
        abnormal_count integer NOT NULL DEFAULT 0,
        -- the records, protobuf-encoded RecordColumns; cleared when the batch is done
        payload bytea,
        -- who sent it: the batch is processed with the sender's access, on any replica
        caller jsonb NOT NULL,
        failure_code text,
        failure_detail text,
        lease_until timestamptz,
        created_at timestamptz NOT NULL,
        started_at timestamptz,
        completed_at timestamptz
      );
      CREATE INDEX batches_open ON batches (created_at) WHERE status IN ('pending', 'processing');

      CREATE TABLE batch_errors (
        batch_id text NOT NULL REFERENCES batches (id) ON DELETE CASCADE,
        idx integer NOT NULL,
        code text NOT NULL,
        field text NOT NULL,
        detail text NOT NULL,
        PRIMARY KEY (batch_id, idx)
      );
    `,
  },
  {
    // Made a jsonb outbox json. The outbox is text now ('000_outbox_text', which sorts before
    // this and would be undone by it on a new database), so this step no longer changes anything.
    id: '002_outbox_json',
    sql: `SELECT 1`,
  },
  alarmsMigration,
  {
    id: '005_ingest_versions',
    sql: `
      -- The newest ingest version of each project, handed over by the projects service before a
      -- change of the project commits; a cached ingest context older than it is not used (ADR 0022).
      CREATE TABLE ingest_versions (
        project_id text PRIMARY KEY,
        version bigint NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
  {
    // Per point, hour and day rollups of the valid and suspect records (rollups.ts, ADR 0023):
    // writes append deltas, folded in the background into one row per bucket; corrections and
    // deletions recount their buckets. Sums in micrometres (1e-6 mm). Filled from the records already stored.
    id: '003_rollups',
    sql: `
      CREATE TABLE data_rollups (
        point_id text NOT NULL,
        bucket_seconds integer NOT NULL,
        bucket_start timestamptz NOT NULL,
        count integer NOT NULL,
        dx_n integer NOT NULL, dx_min double precision, dx_max double precision, dx_sum bigint NOT NULL,
        dy_n integer NOT NULL, dy_min double precision, dy_max double precision, dy_sum bigint NOT NULL,
        dz_n integer NOT NULL, dz_min double precision, dz_max double precision, dz_sum bigint NOT NULL,
        warning_count integer NOT NULL,
        alarm_count integer NOT NULL,
        PRIMARY KEY (point_id, bucket_seconds, bucket_start)
      );
      CREATE TABLE data_rollup_deltas (LIKE data_rollups);
      -- hour deltas only (folding adds them to the days): the hour is the key
      CREATE INDEX data_rollup_deltas_hour ON data_rollup_deltas (point_id, bucket_start);
      ${rebuildStatements().join(';\n')};
    `,
  },
  {
    // Rollup deltas folding could not take (rollups.ts, foldPointByPoint): set aside with the error
    // so one bad row never stops the folding of every other point.
    id: '006_rollup_rejects',
    sql: `
      CREATE TABLE data_rollup_rejects (LIKE data_rollup_deltas, rejected_at timestamptz NOT NULL DEFAULT now(), error text NOT NULL);
    `,
  },
  {
    // Instruments (docs/adr/0082): the channels of a point without coordinates, by
    // name, as jsonb (NULL for geodetic records); alarms name the channel whose level was
    // crossed, and the first reading over it of the run that opened them.
    id: '020_instrument_channels',
    sql: `
      ALTER TABLE data_records ADD COLUMN channels jsonb;
      ALTER TABLE alarms ADD COLUMN channel text, ADD COLUMN first_measured_at timestamptz, ADD COLUMN opening_count integer NOT NULL DEFAULT 1;
    `,
  },
  {
    // Raw readings archived to files and removed (archive.ts, docs/adr/0081): one row per file.
    // Series read rollups before the end of a tenant's latest archived month.
    id: '010_raw_archives',
    sql: `
      CREATE TABLE raw_archives (
        month date NOT NULL,
        tenant_id text NOT NULL,
        file text NOT NULL,
        rows bigint NOT NULL,
        bytes bigint NOT NULL,
        -- true: the month's partition was dropped with it; false: the rows were deleted from it
        partition_dropped boolean NOT NULL,
        archived_at timestamptz NOT NULL,
        PRIMARY KEY (tenant_id, month, file)
      );
    `,
  },
  alarmInboxMigration,
  {
    // Rollups per instrument channel (rollups.ts, docs/adr/0118): per point, channel, UTC hour and
    // day, the count, min, max and exact sum (1e-6 of the channel's unit, numeric) of the valid and
    // suspect records' channel values. Maintained like data_rollups: writes append deltas, folding
    // moves them, corrections recount. Filled from the records already stored.
    id: '021_channel_rollups',
    sql: `
      CREATE TABLE data_channel_rollups (
        point_id text NOT NULL,
        channel text NOT NULL,
        bucket_seconds integer NOT NULL,
        bucket_start timestamptz NOT NULL,
        n integer NOT NULL,
        min double precision,
        max double precision,
        sum numeric NOT NULL,
        PRIMARY KEY (point_id, channel, bucket_seconds, bucket_start)
      );
      CREATE TABLE data_channel_rollup_deltas (LIKE data_channel_rollups);
      CREATE INDEX data_channel_rollup_deltas_hour ON data_channel_rollup_deltas (point_id, channel, bucket_start);
      ${rebuildChannelStatements().join(';\n')};
    `,
  },
  RECOMPUTE_MIGRATION,
  importsMigration,
  importRangesMigration,
  RECOMPUTE_CAUSES_MIGRATION,
];
