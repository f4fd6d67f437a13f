import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { MemoryTransport } from '@mp/events';
import { createClient, generatePlatformKeys } from '@mp/grpc';
import { identity } from '@mp/contracts';
import { createLogger, newMasterKey } from '@mp/kit';
import { createTestDatabase, queryTestDatabase, type TestDatabase } from '@mp/testing';
import { ensureFirstAdmin } from '../src/bootstrap.js';
import { parseIdentityConfig } from '../src/config.js';
import { ALL_PERMISSIONS } from '../src/permissions.js';
import { startIdentityService } from '../src/service.js';
import { anon, openIdentityDatabase, startTestIdentity, type TestIdentity } from './support.js';

describe('identity: first start', () => {
  let t: TestIdentity | undefined;
  let shared: TestDatabase | undefined;
  afterAll(async () => {
    await t?.stop();
    await shared?.drop();
  });

  it('creates the first administrator with a generated 20-character password and every permission, once', async () => {
    t = await startTestIdentity({});
    const admin = t.service.admin;
    expect(admin).toMatchObject({ created: true, username: 'admin', passwordSource: 'generated', passwordSettingIgnored: false });
    expect(admin.password).toMatch(/^[A-Za-z0-9]{20}$/);

    const users = await t.sql<{ username: string; permissions: string[]; password_hash: string; tenant_id: string }>('SELECT * FROM identity.users');
    expect(users).toHaveLength(1);
    expect([...users[0]!.permissions].sort()).toEqual([...ALL_PERMISSIONS].sort());
    expect(users[0]!.password_hash).toMatch(/^scrypt\$131072\$8\$1\$[A-Za-z0-9+/=]{44}\$[A-Za-z0-9+/=]{88}$/);
    expect(users[0]!.password_hash).not.toContain(admin.password);
    expect(await t.sql('SELECT name FROM identity.tenants WHERE id = $1', [users[0]!.tenant_id])).toEqual([{ name: 'Default tenant' }]);

    const token = await t.client.login({ username: 'admin', password: admin.password!, environment: 'live', clientAddress: '' }, anon());
    expect(token.scope.split(' ')).toHaveLength(10);

    // A later start with MP_ADMIN_PASSWORD set says the setting was not used (the banner says so).
    expect(await ensureFirstAdmin({ db: t.db }, { username: 'other', password: 'another password' })).toEqual({
      created: false,
      username: 'admin',
      passwordSource: 'existing',
      passwordSettingIgnored: true,
    });
    expect(await ensureFirstAdmin({ db: t.db })).toEqual({ created: false, username: 'admin', passwordSource: 'existing', passwordSettingIgnored: false });
    expect(await t.sql('SELECT count(*)::int AS n FROM identity.users')).toEqual([{ n: 1 }]);
  });

  it('keeps the private signing key sealed and publishes only the public half', async () => {
    const [row] = await t!.sql<{ kid: string; public_jwk: Record<string, string>; private_jwk_sealed: string }>('SELECT * FROM identity.signing_keys');
    expect(row!.private_jwk_sealed).toMatch(/^v2\.[A-Za-z0-9_-]{8}\./);
    expect(row!.private_jwk_sealed).not.toContain('"d"');
    expect(row!.public_jwk).not.toHaveProperty('d');
    const set = JSON.parse((await t!.client.getJwks({}, anon())).jwksJson) as JSONWebKeySet;
    expect(set.keys.map((k) => k.kid)).toEqual([row!.kid]);
  });

  it('creates exactly one administrator and one signing key when replicas start together', async () => {
    shared = await createTestDatabase();
    // Migrated one after another: migrate() in @mp/db runs CREATE SCHEMA before taking its lock,
    // so replicas migrating a brand-new database at the same instant can collide (reported).
    const dbs = [];
    for (let i = 0; i < 3; i++) dbs.push(await openIdentityDatabase(shared.url));
    const secretsKey = newMasterKey();
    const config = parseIdentityConfig({ MP_IDENTITY_GRPC_PORT: '0', MP_ADMIN_USERNAME: 'root', MP_ADMIN_PASSWORD: 'replica password' });
    const transport = new MemoryTransport();
    const keys = await generatePlatformKeys({ mtls: false });
    const services = await Promise.all(
      dbs.map((db) =>
        startIdentityService({ auth: keys.authFor('identity'), db, transport, logger: createLogger('identity-test', 'silent'), config, secretsKey }),
      ),
    );
    const clients = services.map((s) =>
      createClient<identity.IdentityServer>(identity.IdentityClient, identity.IdentityService, `127.0.0.1:${s.port}`, {
        auth: keys.authFor('gateway'),
        audience: 'identity',
      }),
    );
    try {
      expect(services.filter((s) => s.admin.created)).toHaveLength(1);
      expect(services.filter((s) => s.admin.created)[0]!.admin.passwordSource).toBe('setting');
      expect(services.every((s) => s.admin.username === 'root' && s.admin.password === undefined)).toBe(true);
      expect(await queryTestDatabase(shared.url, 'SELECT count(*)::int AS n FROM identity.users')).toEqual([{ n: 1 }]);
      expect(await queryTestDatabase(shared.url, 'SELECT count(*)::int AS n FROM identity.signing_keys')).toEqual([{ n: 1 }]);
      const sets = await Promise.all(clients.map(async (c) => (await c.getJwks({}, anon())).jwksJson));
      expect(new Set(sets).size).toBe(1);

      // A token from one replica verifies with the keys another one publishes, and refreshes at a third.
      const token = await clients[0]!.login({ username: 'root', password: 'replica password', environment: 'live', clientAddress: '' }, anon());
      await jwtVerify(token.accessToken, createLocalJWKSet(JSON.parse(sets[0]!) as JSONWebKeySet), { algorithms: ['EdDSA'], typ: 'at+jwt' });
      await expect(clients[2]!.refresh({ refreshToken: token.refreshToken, environment: 'live' }, anon())).resolves.toMatchObject({ tokenType: 'Bearer' });
    } finally {
      clients.forEach((c) => c.close());
      await Promise.all(services.map((s) => s.stop()));
      await transport.close();
      await Promise.all(dbs.map((db) => db.close()));
    }
  });

  it('refuses a configuration with a bad value, naming the variable', () => {
    expect(() => parseIdentityConfig({ MP_LOGIN_MAX_FAILURES: 'many' })).toThrow(/MP_LOGIN_MAX_FAILURES/);
    expect(() => parseIdentityConfig({ MP_ADMIN_PASSWORD: 'short' })).toThrow(/MP_ADMIN_PASSWORD/);
    expect(parseIdentityConfig({ MP_ADMIN_PASSWORD: '' }).MP_ADMIN_PASSWORD).toBeUndefined();
    expect(parseIdentityConfig({})).toMatchObject({
      MP_IDENTITY_GRPC_PORT: 50051,
      MP_GRPC_HOST: '127.0.0.1',
      MP_JWT_ISSUER: 'monitoring-platform',
      MP_JWT_AUDIENCE: 'monitoring-platform-api',
      MP_LOGIN_MAX_FAILURES: 5,
      MP_LOGIN_FAILURE_WINDOW_SECONDS: 900,
      MP_LOGIN_LOCK_SECONDS: 1800,
    });
  });
});
