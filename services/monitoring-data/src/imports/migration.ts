import type { Migration } from '@mp/db';

/**
 * Logger file imports (docs/imports.md, docs/adr/0120-logger-file-imports.md): import profiles,
 * imports (one leased row each, as batches), the file's bytes while it is processed (chunks of up
 * to 1 MiB, dropped when the import ends) and the first errors of each import.
 */
export const importsMigration: Migration = {
  id: '040_logger_imports',
  sql: `
    CREATE TABLE import_profiles (
      id text PRIMARY KEY,
      tenant_id text NOT NULL,
      environment text NOT NULL,
      project_id text NOT NULL,
      name text NOT NULL,
      format text NOT NULL,
      timestamp_column text NOT NULL,
      timestamp_format text,
      time_zone text NOT NULL,
      delimiter text,
      decimal text,
      -- [{ column, point_id, channel }], in the order given
      columns jsonb NOT NULL,
      version integer NOT NULL DEFAULT 1,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    );
    CREATE INDEX import_profiles_project ON import_profiles (project_id, id);
    CREATE TABLE imports (
      id text PRIMARY KEY,
      tenant_id text NOT NULL,
      environment text NOT NULL,
      project_id text NOT NULL,
      profile_id text NOT NULL,
      -- the profile as it was when the import was made: a later change does not alter it
      profile jsonb NOT NULL,
      -- receiving (the upload is under way) | processing | completed | failed
      status text NOT NULL,
      bytes bigint NOT NULL DEFAULT 0,
      chunk_count integer NOT NULL DEFAULT 0,
      -- data rows whose readings are committed: a worker taking over skips this many
      rows_done integer NOT NULL DEFAULT 0,
      -- the instant of the last row read (UTC ms), for the daylight-saving rule of the next one
      last_ms double precision,
      stored integer NOT NULL DEFAULT 0,
      duplicates integer NOT NULL DEFAULT 0,
      rejected integer NOT NULL DEFAULT 0,
      error_count integer NOT NULL DEFAULT 0,
      records_per_minute integer NOT NULL DEFAULT 0,
      caller jsonb NOT NULL,
      failure_code text,
      failure_detail text,
      lease_until timestamptz,
      created_at timestamptz NOT NULL,
      started_at timestamptz,
      completed_at timestamptz
    );
    CREATE INDEX imports_open ON imports (created_at) WHERE status IN ('receiving', 'processing');
    CREATE TABLE import_chunks (
      import_id text NOT NULL REFERENCES imports (id) ON DELETE CASCADE,
      seq integer NOT NULL,
      data bytea NOT NULL,
      PRIMARY KEY (import_id, seq)
    );
    CREATE TABLE import_errors (
      import_id text NOT NULL REFERENCES imports (id) ON DELETE CASCADE,
      n integer NOT NULL,
      row integer NOT NULL,
      column_name text,
      code text NOT NULL,
      message text NOT NULL,
      PRIMARY KEY (import_id, n)
    );
  `,
};

/**
 * Several chunks of an import stored at once (docs/adr/0120-logger-file-imports.md#amendment):
 * the data rows whose readings are committed are a set of ranges (0-based data-row numbers,
 * merged as they touch), not a count. A worker taking over skips every committed range; rows_done
 * stays the number of rows processed, for the progress answered. The instant of the last committed
 * row (last_ms) goes: a worker taking over reads the skipped rows' times again for the
 * daylight-saving rule. An import under way when this runs keeps its committed prefix.
 */
export const importRangesMigration: Migration = {
  id: '041_import_done_ranges',
  sql: `
    ALTER TABLE imports ADD COLUMN done_rows int4multirange NOT NULL DEFAULT '{}';
    UPDATE imports SET done_rows = int4multirange(int4range(0, rows_done)) WHERE rows_done > 0;
    ALTER TABLE imports DROP COLUMN last_ms;
  `,
};
