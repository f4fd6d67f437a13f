import type { Migration } from '@mp/db';
import { outboxMigration } from '@mp/events';

export const SCHEMA = 'identity';

export const migrations: Migration[] = [
  // The outbox is there from the start so identity can raise domain events without a reshuffle.
  outboxMigration,
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
];
