import { idempotencyMigration, type Migration } from '@mp/db';
import { outboxMigrations } from '@mp/events';

export const SCHEMA = 'identity';

export const migrations: Migration[] = [
  // The outbox is there from the start so identity can raise domain events without a reshuffle.
  ...outboxMigrations,
  // Idempotency-Key of POST /api-keys (ADR 0012).
  idempotencyMigration,
  {
    id: '001_identity',
    sql: `
      CREATE TABLE tenants (
        id text PRIMARY KEY,
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );

      CREATE TABLE users (
        id text PRIMARY KEY,
        tenant_id text NOT NULL REFERENCES tenants (id),
        -- sign-in is by username alone, so it is unique across tenants
        username text NOT NULL,
        name text NOT NULL DEFAULT '',
        phone text,
        password_hash text NOT NULL,
        permissions text[] NOT NULL DEFAULT '{}',
        disabled boolean NOT NULL DEFAULT false,
        failed_count integer NOT NULL DEFAULT 0,
        first_failed_at timestamptz,
        locked_until timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        version integer NOT NULL DEFAULT 1,
        CONSTRAINT users_username_unique UNIQUE (username)
      );
      CREATE INDEX users_tenant ON users (tenant_id, created_at DESC, id DESC);

      CREATE TABLE api_keys (
        id text PRIMARY KEY,
        tenant_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('live', 'sandbox')),
        name text NOT NULL,
        -- first 12 characters of the value, to recognise a key in lists; the value itself is never stored
        prefix text NOT NULL,
        -- sha256 hex of the whole value
        key_hash text NOT NULL,
        permissions text[] NOT NULL,
        created_by text,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz,
        revoked_at timestamptz,
        last_used_at timestamptz,
        CONSTRAINT api_keys_hash_unique UNIQUE (key_hash)
      );
      CREATE INDEX api_keys_list ON api_keys (tenant_id, environment, created_at DESC, id DESC);

      CREATE TABLE refresh_tokens (
        jti text PRIMARY KEY,
        user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        tenant_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('live', 'sandbox')),
        -- every token issued by rotation from one login shares the family; reuse revokes it whole
        family_id text NOT NULL,
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        revoked_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX refresh_tokens_family ON refresh_tokens (family_id);
      CREATE INDEX refresh_tokens_expiry ON refresh_tokens (expires_at);

      CREATE TABLE signing_keys (
        kid text PRIMARY KEY,
        public_jwk jsonb NOT NULL,
        -- the private JWK sealed with the platform's master key (SecretBox, AES-256-GCM)
        private_jwk_sealed text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        retired_at timestamptz
      );
    `,
  },
  {
    // Plans, sessions, users' profiles, rolled API keys, OAuth 2.0 (docs/adr/0010).
    id: '002_identity_complete',
    sql: `
      -- A tenant's plan licenses features (403004 otherwise) and sets its rate limits; a limit of
      -- 0 means the operator default (MP_LIMIT_*).
      CREATE TABLE plans (
        name text PRIMARY KEY,
        features text[] NOT NULL DEFAULT '{}',
        api_per_minute integer NOT NULL DEFAULT 0 CHECK (api_per_minute >= 0),
        data_records_per_minute integer NOT NULL DEFAULT 0 CHECK (data_records_per_minute >= 0),
        reports_per_hour integer NOT NULL DEFAULT 0 CHECK (reports_per_hour >= 0),
        concurrent_requests integer NOT NULL DEFAULT 0 CHECK (concurrent_requests >= 0),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      INSERT INTO plans (name, features) VALUES ('standard', ARRAY['sandbox', 'oauth', 'reports', 'data_batches']);
      ALTER TABLE tenants ADD COLUMN plan text NOT NULL DEFAULT 'standard' REFERENCES plans (name);

      ALTER TABLE users ADD COLUMN last_login_at timestamptz;

      -- One row per sign-in (password login or OAuth code exchange). Refresh tokens of a session
      -- share its id as family_id; access tokens carry it as "sid", so revoking the session (logout,
      -- refresh-token reuse, code reuse, client deletion) ends every token of it at once.
      CREATE TABLE sessions (
        id text PRIMARY KEY,
        user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        tenant_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('live', 'sandbox')),
        -- the OAuth client the session was granted to; NULL for password sign-ins
        client_id text,
        -- what the user granted the client; NULL for password sign-ins (all of the user's permissions)
        scope text[],
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz,
        revoke_reason text
      );
      CREATE INDEX sessions_user ON sessions (user_id);
      CREATE INDEX sessions_client ON sessions (client_id) WHERE client_id IS NOT NULL;
      INSERT INTO sessions (id, user_id, tenant_id, environment, created_at, revoked_at)
        SELECT family_id, min(user_id), min(tenant_id), min(environment), min(created_at), max(revoked_at)
        FROM refresh_tokens GROUP BY family_id;

      -- Rolling a key gives it a new value; the previous value keeps working until expires_at.
      ALTER TABLE api_keys ADD COLUMN rolled_at timestamptz;
      CREATE TABLE api_key_previous_values (
        key_hash text PRIMARY KEY,
        key_id text NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
        prefix text NOT NULL,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX api_key_previous_values_key ON api_key_previous_values (key_id, expires_at DESC);

      CREATE TABLE oauth_clients (
        id text PRIMARY KEY,
        tenant_id text NOT NULL REFERENCES tenants (id),
        environment text NOT NULL CHECK (environment IN ('live', 'sandbox')),
        name text NOT NULL,
        client_type text NOT NULL CHECK (client_type IN ('confidential', 'public')),
        -- sha256 hex of the secret (~190 random bits); NULL for public clients
        secret_hash text,
        redirect_uris text[] NOT NULL,
        created_by text,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX oauth_clients_list ON oauth_clients (tenant_id, environment, created_at DESC, id DESC);

      -- A pending authorization: what GET /oauth/authorize asked for, shown on the consent page.
      -- The page's form names it by id and proves it came from that page with the CSRF token.
      CREATE TABLE oauth_requests (
        id text PRIMARY KEY,
        csrf_hash text NOT NULL,
        client_id text NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
        environment text NOT NULL,
        redirect_uri text NOT NULL,
        scope text[] NOT NULL,
        state text,
        code_challenge text,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        completed_at timestamptz
      );
      CREATE INDEX oauth_requests_expiry ON oauth_requests (expires_at);

      CREATE TABLE oauth_codes (
        -- sha256 hex of the code; the code itself is never stored
        code_hash text PRIMARY KEY,
        client_id text NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
        user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        tenant_id text NOT NULL,
        environment text NOT NULL,
        redirect_uri text NOT NULL,
        scope text[] NOT NULL,
        code_challenge text,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        -- the session the exchange opened: a second use of the code revokes it
        session_id text
      );
      CREATE INDEX oauth_codes_expiry ON oauth_codes (expires_at);
    `,
  },
  {
    // Failed sign-ins lock a username per source, not the whole account (docs/adr/0019).
    // users.failed_count and first_failed_at are no longer written (kept for replicas of the
    // previous version during a rolling upgrade); users.locked_until shows the latest lock of any source.
    id: '003_login_failures_per_source',
    sql: `
      CREATE TABLE login_failures (
        -- sha256 hex of the username as typed: unknown usernames are counted alike
        username_key text NOT NULL,
        -- IPv4 address or IPv6 /64 of the client; '' when the caller gave none
        source text NOT NULL,
        failed_count integer NOT NULL,
        first_failed_at timestamptz NOT NULL,
        locked_until timestamptz,
        -- when the row stops mattering (end of the window, or of the lock); pruned after
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (username_key, source)
      );
      CREATE INDEX login_failures_expiry ON login_failures (expires_at);
      UPDATE users SET failed_count = 0, first_failed_at = NULL;
    `,
  },
  {
    // ADR 0063: an OAuth client keeps the permissions of the principal that registered it, so a
    // narrower administrator cannot delete it (the reach rule of users and keys). Clients from
    // before take their creator's current permissions; a creator gone takes all of them (only an
    // administrator holding everything may delete such a client).
    id: '004_oauth_client_creator_permissions',
    sql: `
      ALTER TABLE oauth_clients ADD COLUMN creator_permissions text[];
      UPDATE oauth_clients c SET creator_permissions = COALESCE(
        (SELECT u.permissions FROM users u WHERE u.id = c.created_by),
        (SELECT k.permissions FROM api_keys k WHERE k.id = c.created_by),
        ARRAY['project:read', 'project:write', 'task:read', 'task:write', 'data:read', 'data:write',
              'report:read', 'report:write', 'system:read', 'system:admin']);
      ALTER TABLE oauth_clients ALTER COLUMN creator_permissions SET NOT NULL;
    `,
  },
  {
    // Raw readings of a plan's tenants are archived and removed after this many whole months
    // (docs/adr/0081); NULL keeps them forever.
    id: '005_plan_raw_retention',
    sql: `
      ALTER TABLE plans ADD COLUMN raw_retention_months integer CHECK (raw_retention_months BETWEEN 1 AND 1200);
    `,
  },
];
