import { identity } from '@mp/contracts';
import { createPgDatabase, migrate, type Database } from '@mp/db';
import { MemoryTransport } from '@mp/events';
import { anonymousContext, generatePlatformKeys, type CallerContext, type PlatformKeys, type PromiseClient } from '@mp/grpc';
import { createLogger, newMasterKey, type Clock } from '@mp/kit';
import { createTestDatabase, platformClient, queryTestDatabase, type TestDatabase } from '@mp/testing';
import { parseIdentityConfig } from '../src/config.js';
import { migrations, SCHEMA } from '../src/migrations.js';
import { startIdentityService, type RunningIdentityService } from '../src/service.js';

export const ADMIN = { username: 'admin', password: 'correct horse battery staple' };

/** A clock tests move forward; it follows real time plus the offset. */
export class TestClock implements Clock {
  offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
  advance(seconds: number): void {
    this.offsetMs += seconds * 1000;
  }
  reset(): void {
    this.offsetMs = 0;
  }
}

export interface TestIdentity {
  service: RunningIdentityService;
  /** Calls as the gateway; calls with an operator's context (system()) as the operator. */
  client: PromiseClient<identity.IdentityServer>;
  /** The service keys the service and its client were given (forged-caller tests). */
  keys: PlatformKeys;
  testDb: TestDatabase;
  db: Database;
  clock: TestClock;
  secretsKey: string;
  /** Rows of the test database (schema-qualified names, e.g. identity.users). */
  sql<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
  /** The caller context of the first administrator, as the gateway would send it. */
  adminContext(environment?: 'live' | 'sandbox', permissions?: string[]): Promise<CallerContext>;
  stop(): Promise<void>;
}

export const anon = (environment: 'live' | 'sandbox' = 'live') => anonymousContext('req_testtesttesttesttest', environment);

/** An operator's call from inside the cluster (tenants, plans, signing keys). */
export const system = (): CallerContext => ({
  requestId: 'req_testtesttesttesttest',
  tenantId: '',
  environment: 'live',
  principalId: 'operator',
  principalType: 'system',
  permissions: [],
});

export async function openIdentityDatabase(url: string): Promise<Database> {
  const db = createPgDatabase({ url, schema: SCHEMA, max: 5 });
  await migrate(db, SCHEMA, migrations);
  return db;
}

/** The identity service on a free port against a fresh PostgreSQL database. */
export async function startTestIdentity(
  env: Record<string, string> = { MP_ADMIN_USERNAME: ADMIN.username, MP_ADMIN_PASSWORD: ADMIN.password },
): Promise<TestIdentity> {
  const testDb = await createTestDatabase();
  const db = await openIdentityDatabase(testDb.url);
  const clock = new TestClock();
  const secretsKey = newMasterKey();
  const transport = new MemoryTransport();
  const keys = await generatePlatformKeys({ mtls: false });
  const config = parseIdentityConfig({ MP_DATABASE_URL: testDb.url, MP_IDENTITY_GRPC_PORT: '0', ...env });
  let service: RunningIdentityService;
  try {
    service = await startIdentityService({
      auth: keys.authFor('identity'),
      db,
      transport,
      logger: createLogger('identity-test', 'silent'),
      config,
      secretsKey,
      clock,
    });
  } catch (err) {
    await db.close();
    await testDb.drop();
    throw err;
  }
  const client = platformClient<identity.IdentityServer>(identity.IdentityClient, identity.IdentityService, `127.0.0.1:${service.port}`, keys, 'identity');
  const sql = <R = Record<string, unknown>>(text: string, params: unknown[] = []) => queryTestDatabase<R>(testDb.url, text, params);
  return {
    service,
    client,
    keys,
    testDb,
    db,
    clock,
    secretsKey,
    sql,
    async adminContext(environment = 'live', permissions) {
      const [admin] = await sql<{ id: string; tenant_id: string; permissions: string[] }>(
        `SELECT id, tenant_id, permissions FROM identity.users WHERE 'system:admin' = ANY (permissions) ORDER BY created_at LIMIT 1`,
      );
      return {
        requestId: 'req_testtesttesttesttest',
        tenantId: admin!.tenant_id,
        environment,
        principalId: admin!.id,
        principalType: 'user',
        permissions: permissions ?? admin!.permissions,
      };
    },
    async stop() {
      client.close();
      await service.stop();
      await transport.close();
      await db.close();
      await testDb.drop();
    },
  };
}

/** The DomainError a call rejected with (fails the test when it resolved). */
export async function rejection(promise: Promise<unknown>): Promise<{ code: string; field: string | null; detail: string; headers: Record<string, string> }> {
  try {
    await promise;
  } catch (err) {
    return err as { code: string; field: string | null; detail: string; headers: Record<string, string> };
  }
  throw new Error('expected the call to fail');
}
