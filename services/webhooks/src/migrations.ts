import { idempotencyMigration, type Migration } from '@mp/db';

export const SCHEMA = 'webhooks';

export const migrations: Migration[] = [
  // Idempotency-Key of POST /webhooks (ADR 0012).
  idempotencyMigration,
  {
    id: '001_webhooks',
    sql: `
      CREATE TABLE webhooks (
        id text PRIMARY KEY,
        tenant_id text NOT NULL,
        environment text NOT NULL,
        name text NOT NULL,
        url text NOT NULL,
        events text[] NOT NULL,
        max_retries integer NOT NULL,
        retry_interval integer NOT NULL,
        active boolean NOT NULL DEFAULT true,
        -- AES-256-GCM sealed; the signing secret must be readable to sign, so it is encrypted, not hashed
        secret_sealed text NOT NULL,
        created_by text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz,
        version integer NOT NULL DEFAULT 1
      );
      CREATE INDEX webhooks_by_tenant ON webhooks (tenant_id, environment, created_at DESC, id DESC) WHERE deleted_at IS NULL;

      -- Every event taken from the transport, once (event_id is the de-duplication key).
      CREATE TABLE events (
        event_id text PRIMARY KEY,
        event_type text NOT NULL,
        tenant_id text NOT NULL,
        environment text NOT NULL,
        occurred_at timestamptz NOT NULL,
        data jsonb NOT NULL,
        received_at timestamptz NOT NULL DEFAULT now()
      );

      -- One delivery per event and subscribed webhook; attempts below it.
      CREATE TABLE deliveries (
        id text PRIMARY KEY,
        event_id text NOT NULL REFERENCES events (event_id),
        webhook_id text NOT NULL REFERENCES webhooks (id),
        tenant_id text NOT NULL,
        environment text NOT NULL,
        event_type text NOT NULL,
        status text NOT NULL DEFAULT 'pending',
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz,
        lease_until timestamptz,
        http_status integer,
        duration_ms integer,
        error text,
        delivered_at timestamptz,
        failed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT deliveries_event_webhook UNIQUE (event_id, webhook_id)
      );
      CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'pending';
      CREATE INDEX deliveries_by_webhook ON deliveries (webhook_id, created_at DESC, id DESC);

      CREATE TABLE delivery_attempts (
        delivery_id text NOT NULL REFERENCES deliveries (id),
        attempt integer NOT NULL,
        started_at timestamptz NOT NULL,
        duration_ms integer NOT NULL,
        http_status integer,
        outcome text NOT NULL,
        error text,
        PRIMARY KEY (delivery_id, attempt)
      );
    `,
  },
  {
    id: '002_operations',
    sql: `
      -- Secret rotation (ADR 0009): the old secret keeps signing until secret_switch_at, then
      -- next_secret_sealed does. Nothing rewrites the row at the switch; readers pick the secret.
      ALTER TABLE webhooks
        ADD COLUMN next_secret_sealed text,
        ADD COLUMN secret_switch_at timestamptz,
        ADD COLUMN secret_rotated_at timestamptz;

      -- A resend starts a new cycle: attempts counts the attempts of the current cycle only.
      ALTER TABLE deliveries ADD COLUMN cycle integer NOT NULL DEFAULT 1;
      ALTER TABLE delivery_attempts
        ADD COLUMN cycle integer NOT NULL DEFAULT 1,
        ADD COLUMN finished_at timestamptz,
        ADD COLUMN redirects integer NOT NULL DEFAULT 0,
        ADD COLUMN retry_at timestamptz;
      ALTER TABLE delivery_attempts DROP CONSTRAINT delivery_attempts_pkey;
      ALTER TABLE delivery_attempts ADD PRIMARY KEY (delivery_id, cycle, attempt);

      -- The worker claims per webhook (a receiver that hangs cannot take every slot), walking
      -- the webhooks that have pending rows through this index.
      DROP INDEX deliveries_due;
      CREATE INDEX deliveries_pending_by_webhook ON deliveries (webhook_id, next_attempt_at) WHERE status = 'pending';
      -- List cursors carry created_at as an ISO string (milliseconds); microsecond values would
      -- make rows created in the same millisecond fall between two pages.
      ALTER TABLE deliveries ALTER COLUMN created_at TYPE timestamptz(3);
      ALTER TABLE webhooks ALTER COLUMN created_at TYPE timestamptz(3);

      -- deliveries_by_webhook (webhook_id, created_at DESC, id DESC) also serves the 24-hour
      -- success rate and the from/to filters of the delivery list.
    `,
  },
  {
    id: '003_delivery_list_at_scale',
    sql: `
      -- ADR 0021: the delivery list filtered by status=failed or status=pending walked a
      -- webhook's whole history newest first (or scanned the table) to find a few rows: for a
      -- webhook with nothing pending, every row it ever had. Rows that are not delivered are few
      -- (the backlog and the failures), so this index stays small; a delivery enters it once, when
      -- it is created, and never when it is delivered. status=delivered is served by
      -- deliveries_by_webhook, where nearly every row matches.
      CREATE INDEX deliveries_open_by_webhook ON deliveries (webhook_id, created_at DESC, id DESC) WHERE status <> 'delivered';
    `,
  },
  {
    id: '004_event_traceparent',
    sql: `
      -- ADR 0037: the trace context of the consumer span that stored the event, continued by the
      -- delivery's first attempt (later ones link to it). Null when untraced.
      ALTER TABLE events ADD COLUMN traceparent text;
    `,
  },
  {
    id: '005_least_privilege_and_projects',
    sql: `
      -- ADR 0063: the permissions of the principal that made the webhook; acting on it needs all
      -- of them. Webhooks from before take system:admin and what reading their events needs: only
      -- a principal that could make the same webhook today can change it.
      ALTER TABLE webhooks ADD COLUMN creator_permissions text[];
      UPDATE webhooks SET creator_permissions = ARRAY(
        SELECT DISTINCT p FROM (
          SELECT 'system:admin' AS p
          UNION ALL
          SELECT CASE split_part(e, '.', 1) WHEN 'data' THEN 'data:read' WHEN 'alarm' THEN 'data:read' WHEN 'task' THEN 'task:read'
                                           WHEN 'project' THEN 'project:read' WHEN 'report' THEN 'report:read' END
            FROM unnest(events) AS e
        ) needed WHERE p IS NOT NULL ORDER BY p);
      ALTER TABLE webhooks ALTER COLUMN creator_permissions SET NOT NULL;

      -- ADR 0064: the projects whose events a webhook receives; NULL for every project.
      ALTER TABLE webhooks ADD COLUMN project_ids text[];
    `,
  },
  {
    id: '007_notifications',
    sql: `
      -- ADR 0090: who is e-mailed about a project's alarms. recipients and escalation_recipients
      -- are e-mail addresses; creator_permissions as for webhooks (ADR 0063).
      CREATE TABLE notification_rules (
        id text PRIMARY KEY,
        tenant_id text NOT NULL,
        environment text NOT NULL,
        project_id text NOT NULL,
        name text NOT NULL,
        levels text[] NOT NULL,
        recipients text[] NOT NULL,
        reminder_interval_s integer,
        escalation_after_s integer,
        escalation_recipients text[] NOT NULL DEFAULT '{}',
        created_by text NOT NULL,
        creator_permissions text[] NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        deleted_at timestamptz
      );
      CREATE INDEX notification_rules_by_project ON notification_rules (tenant_id, environment, project_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;

      -- Every alarm event taken from the transport, once: a redelivered event finds its id here.
      CREATE TABLE notification_events (
        event_id text PRIMARY KEY,
        received_at timestamptz NOT NULL DEFAULT now()
      );

      -- An alarm a rule told people about, while reminders and escalation may still be due.
      -- Replicas claim due rows with FOR UPDATE SKIP LOCKED and move them on in the same transaction.
      CREATE TABLE notified_alarms (
        alarm_id text NOT NULL,
        rule_id text NOT NULL REFERENCES notification_rules (id),
        tenant_id text NOT NULL,
        environment text NOT NULL,
        project_id text NOT NULL,
        -- the latest alarm.opened / alarm.escalated data: what the mails show
        alarm jsonb NOT NULL,
        -- open | acknowledged | cleared
        status text NOT NULL,
        next_reminder_at timestamptz,
        reminders integer NOT NULL DEFAULT 0,
        escalate_at timestamptz,
        escalated_at timestamptz,
        PRIMARY KEY (alarm_id, rule_id)
      );
      CREATE INDEX notified_alarms_due ON notified_alarms ((LEAST(next_reminder_at, escalate_at))) WHERE status = 'open';

      -- The delivery log: one mail to one recipient about one step of one alarm. The unique key
      -- is the guarantee that a step is mailed once, whichever replica handles it. Each mail is
      -- also its acknowledge link (single use: ack_used_at).
      CREATE TABLE notification_mails (
        id text PRIMARY KEY,
        rule_id text NOT NULL REFERENCES notification_rules (id),
        tenant_id text NOT NULL,
        environment text NOT NULL,
        project_id text NOT NULL,
        alarm_id text NOT NULL,
        -- opened | escalated | reminder | escalation
        kind text NOT NULL,
        -- which step: 'opened', 'escalated:alarm', 'reminder:3', 'escalation'
        step text NOT NULL,
        recipient text NOT NULL,
        alarm jsonb NOT NULL,
        subject text NOT NULL,
        -- pending | sent | failed | skipped
        status text NOT NULL DEFAULT 'pending',
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz,
        lease_until timestamptz,
        last_error text,
        smtp_response text,
        sent_at timestamptz,
        ack_expires_at timestamptz NOT NULL,
        ack_used_at timestamptz,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT notification_mails_once UNIQUE (rule_id, alarm_id, step, recipient)
      );
      CREATE INDEX notification_mails_due ON notification_mails (next_attempt_at) WHERE status = 'pending';
      CREATE INDEX notification_mails_by_rule ON notification_mails (rule_id, created_at DESC, id DESC);
    `,
  },
];
