import { projects } from '@mp/contracts';
import { createPgDatabase, migrate, type Database } from '@mp/db';
import { NatsTransport, type DomainEvent } from '@mp/events';
import { createClient, generatePlatformKeys, type CallerContext, type PromiseClient } from '@mp/grpc';
import { createLogger, newId, type Clock } from '@mp/kit';
import { createTestDatabase, createTestStream, queryTestDatabase, waitUntil, type TestDatabase, type TestStream } from '@mp/testing';
import { DomainError } from '@mp/errors';
import { migrations, SCHEMA } from '../../src/migrations.js';
import { startProjectsService, type RunningService } from '../../src/service.js';

/**
 * A clock the test moves by hand (the overdue sweep and idempotency window read it). Each reading
 * moves it on by one millisecond, so rows created one after another still sort by creation time.
 */
export class TestClock implements Clock {
  constructor(private current = new Date('2026-05-01T08:00:00.000Z')) {}
  now(): Date {
    this.current = new Date(this.current.getTime() + 1);
    return new Date(this.current);
  }
  set(iso: string): void {
    this.current = new Date(iso);
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}

export type ProjectsClient = PromiseClient<projects.ProjectsServer>;

export interface Replica {
  service: RunningService;
  client: ProjectsClient;
  database: Database;
  transport: NatsTransport;
}

export interface TestProjects {
  clock: TestClock;
  /** The first replica's client. */
  client: ProjectsClient;
  replicas: Replica[];
  db: TestDatabase;
  stream: TestStream;
  tenantId: string;
  /** An API key of the test tenant (acts tenant-wide, docs/adr/0007). */
  key: CallerContext;
  /** A user of the test tenant without system:admin (needs project membership). */
  user(id?: string, over?: Partial<CallerContext>): CallerContext;
  /** A query on the service's database; name tables with their schema, e.g. `projects.tasks`. */
  sql<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
  /** Every event on the stream, once the outbox has been relayed completely. */
  events(): Promise<DomainEvent[]>;
  stop(): Promise<void>;
}

const ALL = ['project:read', 'project:write', 'task:read', 'task:write', 'data:read', 'data:write'];

/**
 * The projects service alone — one or more replicas on one fresh PostgreSQL database and one
 * JetStream stream, as separate pods would run — with gRPC clients acting as the gateway would.
 * The overdue sweep has no timer here; tests run it with runOverdueSweep() and the TestClock.
 */
export async function startTestProjects(opts: { replicas?: number } = {}): Promise<TestProjects> {
  const db = await createTestDatabase();
  const stream = createTestStream();
  const clock = new TestClock();
  const logger = createLogger('projects-test', process.env.MP_LOG_LEVEL ?? 'silent');
  const replicas: Replica[] = [];
  const keys = await generatePlatformKeys({ mtls: false });
  const stop = async () => {
    for (const r of replicas) {
      r.client.close();
      await r.service.stop();
      await r.transport.close();
      await r.database.close();
    }
    await db.drop();
    await stream.drop();
  };
  try {
    for (let i = 0; i < (opts.replicas ?? 1); i++) {
      const database = createPgDatabase({ url: db.url, schema: SCHEMA, max: 5 });
      await migrate(database, SCHEMA, migrations);
      const transport = await NatsTransport.connect({ url: stream.url, stream: stream.stream, subjectPrefix: stream.subjectPrefix, logger });
      const service = await startProjectsService({ auth: keys.authFor('projects'), db: database, transport, logger, port: 0, clock, overdueSweepMs: 0 });
      const client = createClient<projects.ProjectsServer>(projects.ProjectsClient, projects.ProjectsService, `127.0.0.1:${service.port}`, {
        auth: keys.authFor('gateway'),
        audience: 'projects',
      });
      replicas.push({ service, client, database, transport });
    }
  } catch (err) {
    await stop();
    throw err;
  }
  const tenantId = newId('tenant');
  const base = { requestId: newId('request'), tenantId, environment: 'live' as const };
  return {
    clock,
    client: replicas[0]!.client,
    replicas,
    db,
    stream,
    tenantId,
    key: { ...base, principalId: newId('apiKey'), principalType: 'api_key', permissions: ALL },
    user: (id = newId('user'), over = {}) => ({ ...base, principalId: id, principalType: 'user', permissions: ALL, ...over }),
    sql: <R>(text: string, params: unknown[] = []) => queryTestDatabase<R>(db.url, text, params),
    async events() {
      await waitUntil(
        async () => (await queryTestDatabase<{ n: number }>(db.url, `SELECT count(*)::int AS n FROM ${SCHEMA}.outbox WHERE dispatched_at IS NULL`))[0]!.n === 0,
        {
          message: 'outbox not relayed in time',
        },
      );
      return (await stream.messages()).map((m) => m.data as DomainEvent);
    },
    stop,
  };
}

/** The DomainError a call was refused with (fails the test when it succeeded). */
export async function refusal(call: Promise<unknown>): Promise<{ code: string; field: string | null; detail: string; suggestion: string }> {
  try {
    await call;
  } catch (err) {
    if (err instanceof DomainError) return { code: err.code, field: err.field, detail: err.detail, suggestion: err.suggestion };
    throw err;
  }
  throw new Error('expected the call to be refused, but it succeeded');
}

/** Asserts a refusal's code and field, and that it explains itself. */
export async function expectRefused(call: Promise<unknown>, code: string, field: string | null): Promise<void> {
  const r = await refusal(call);
  expect({ code: r.code, field: r.field }).toEqual({ code, field });
  expect(r.detail.length).toBeGreaterThan(0);
  expect(r.suggestion.length).toBeGreaterThan(0);
}
