import { pino } from 'pino';
import { webhooks } from '@mp/contracts';
import { createPgDatabase, migrate, type Database } from '@mp/db';
import { NatsTransport, outgoing, type DomainEvent, type EventType } from '@mp/events';
import { createClient, generatePlatformKeys, type CallerContext, type PromiseClient } from '@mp/grpc';
import { newId, newMasterKey } from '@mp/kit';
import { connect } from 'nats';
import { createTestDatabase, createTestStream, queryTestDatabase, testCertificate, waitUntil, type TestDatabase, type TestStream } from '@mp/testing';
import { migrations, SCHEMA } from '../../src/migrations.js';
import { startWebhooksService, type RunningWebhooksService, type WebhooksServiceOptions } from '../../src/service.js';

export interface LogLine {
  level: number;
  msg: string;
  [k: string]: unknown;
}

export interface TestWebhooks {
  service: RunningWebhooksService;
  client: PromiseClient<webhooks.WebhooksServer>;
  ctx: CallerContext;
  db: TestDatabase;
  database: Database;
  stream: TestStream;
  transport: NatsTransport;
  logs: LogLine[];
  /** Publishes a domain event of the test tenant to the service's stream (as a producer's relay would). */
  publish(type?: EventType, data?: Record<string, unknown>): Promise<DomainEvent>;
  /** Resolves once the service's consumer (`webhooks` unless named: `notifications`) has acknowledged every event it takes from the stream. */
  consumed(consumer?: string): Promise<void>;
  /** A query on the service's database (tables are in schema `webhooks`). */
  sql<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
  stop(): Promise<void>;
}

export interface TestSetup {
  /** Settings of the test database (ALTER DATABASE … SET), in force on every connection. */
  databaseSettings?: Record<string, string>;
  /** What the service gets as its database, e.g. one that watches the statements it runs. */
  wrapDatabase?: (db: Database) => Database;
}

/**
 * The webhooks service alone, on a fresh PostgreSQL database and JetStream stream, with a gRPC
 * client acting as the gateway would for one tenant. Receivers on 127.0.0.1 are allowed and the
 * test certificate is trusted, unless the options say otherwise.
 */
export async function startTestWebhooks(opts: Partial<WebhooksServiceOptions> = {}, setup: TestSetup = {}): Promise<TestWebhooks> {
  const db = await createTestDatabase();
  for (const [name, value] of Object.entries(setup.databaseSettings ?? {})) {
    await queryTestDatabase(db.url, `ALTER DATABASE ${db.name} SET ${name} = ${value}`);
  }
  const stream = createTestStream();
  const logs: LogLine[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(JSON.parse(line) as LogLine) });
  const database = createPgDatabase({ url: db.url, schema: SCHEMA, max: 10 });
  await migrate(database, SCHEMA, migrations);
  const serviceDb = setup.wrapDatabase ? setup.wrapDatabase(database) : database;
  const transport = await NatsTransport.connect({ url: stream.url, stream: stream.stream, subjectPrefix: stream.subjectPrefix, logger });
  const keys = await generatePlatformKeys({ mtls: false });
  const service = await startWebhooksService({
    auth: keys.authFor('webhooks'),
    db: serviceDb,
    transport,
    logger,
    secretsKey: newMasterKey(),
    port: 0,
    allowPrivateTargets: true,
    extraCa: [(await testCertificate()).cert],
    // no SMTP server; nothing here asks projects or monitoring-data
    notifications: {
      publicUrls: { live: 'https://localhost:8443/v3', sandbox: 'https://localhost:8444/v3' },
      sources: { projects: '127.0.0.1:1', monitoringData: '127.0.0.1:1' },
    },
    ...opts,
  });
  const client = createClient<webhooks.WebhooksServer>(webhooks.WebhooksClient, webhooks.WebhooksService, `127.0.0.1:${service.port}`, {
    auth: keys.authFor('gateway'),
    audience: 'webhooks',
  });
  const ctx: CallerContext = {
    requestId: newId('request'),
    tenantId: newId('tenant'),
    environment: 'live',
    principalId: newId('apiKey'),
    principalType: 'api_key',
    // an administrator who may read every event it subscribes to (the subscription rule, ADR 0063)
    permissions: ['system:admin', 'data:read', 'task:read', 'project:read', 'report:read'],
  };
  return {
    service,
    client,
    ctx,
    db,
    database,
    stream,
    transport,
    logs,
    async publish(type = 'project.created', data = { project_id: newId('project'), project_name: 'Tunnel' }) {
      const event: DomainEvent = {
        event_id: newId('event'),
        event_type: type,
        tenant_id: ctx.tenantId,
        environment: 'live',
        occurred_at: new Date().toISOString(),
        data,
      };
      await transport.publish(outgoing(event));
      return event;
    },
    sql: (text, params = []) => queryTestDatabase(db.url, text, params),
    async consumed(consumer = 'webhooks') {
      const nc = await connect({ servers: stream.url });
      try {
        const jsm = await nc.jetstreamManager();
        await waitUntil(async () => {
          const info = await jsm.consumers.info(stream.stream, consumer);
          return info.num_pending === 0 && info.num_ack_pending === 0;
        });
      } finally {
        await nc.close();
      }
    },
    async stop() {
      client.close();
      await service.stop();
      await transport.close();
      await database.close();
      await stream.drop();
      await db.drop();
    },
  };
}
