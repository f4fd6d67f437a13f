import { monitoringData, projects } from '@mp/contracts';
import { createPgDatabase, createPgliteDatabase, migrate, type Database } from '@mp/db';
import { MemoryTransport, type DomainEvent } from '@mp/events';
import { createClient, generatePlatformKeys, type CallerContext, type PlatformKeys, type PromiseClient } from '@mp/grpc';
import { createLogger, type Clock } from '@mp/kit';
import { PROJECTS_SCHEMA, projectsMigrations, startProjectsService } from '@mp/projects';
import { createTestDatabase, queryTestDatabase, type TestDatabase } from '@mp/testing';
import { migrations, SCHEMA } from '../src/migrations.js';
import { startMonitoringDataService, type MonitoringDataServiceOptions, type RunningService } from '../src/service.js';
import type { AlarmSettings } from '../src/alarms/settings.js';

export const NaN_ = Number.NaN;

/**
 * The monitoring-data service against a real projects service, both on a fresh PostgreSQL
 * database of their own (one schema each, as in production), talking gRPC on loopback.
 */
export interface Harness {
  db: TestDatabase;
  /** Events the relays published, in order. */
  published: DomainEvent[];
  data: PromiseClient<monitoringData.MonitoringDataServer>;
  projects: PromiseClient<projects.ProjectsServer>;
  /** An API-key caller of the tenant (acts tenant-wide, like integrations do). */
  caller: CallerContext;
  /** Every party's service keys (to call a service as another party). */
  keys: PlatformKeys;
  /** Address of the first monitoring-data replica. */
  dataAddress: string;
  /** monitoring-data's own database (PGlite with `embedded`). */
  dataDb: Database;
  /** Starts one more replica of monitoring-data on the same database. */
  replica(opts?: ReplicaOptions): Promise<PromiseClient<monitoringData.MonitoringDataServer>>;
  /** The running replicas, first one first (their stale-data sweeps, for alarm tests). */
  services: RunningService[];
  rows<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>;
  outbox(): Promise<{ event_type: string; data: any }[]>;
  /** A project in progress (start date 2026-01-01, plausible bounds) with points. */
  project(opts?: {
    status?: string;
    startDate?: string;
    points?: Partial<projects.CreatePointRequest>[];
    name?: string;
  }): Promise<{ id: string; name: string; points: projects.Point[] }>;
  stop(): Promise<void>;
}

/** What a replica is started with beyond the defaults: alarm rules and a clock of the test's. */
export interface ReplicaOptions {
  contextTtlMs?: number;
  /** readings per transaction of a recomputation (recompute.ts) */
  recomputeBatch?: number;
  alarms?: Partial<AlarmSettings>;
  clock?: Clock;
  /** Records per transaction of batches and imports, and the import worker's settings. */
  batchChunk?: number;
  imports?: MonitoringDataServiceOptions['imports'];
}

/**
 * `embedded`: monitoring-data on PGlite in memory (the embedded default), projects on PostgreSQL.
 * `rollupFoldMs: 0`: rollup deltas are folded only when a test does it.
 */
export async function startHarness(opts: ReplicaOptions & { embedded?: boolean; rollupFoldMs?: number } = {}): Promise<Harness> {
  const db = await createTestDatabase();
  const logger = createLogger('test', process.env.MP_LOG_LEVEL ?? 'warn');
  const transport = new MemoryTransport();
  // The in-process transport wants a consumer; it collects what the relays published.
  const published: DomainEvent[] = [];
  await transport.subscribe('test', async (e) => {
    published.push(e);
  });
  const stops: (() => Promise<void>)[] = [];
  const keys = await generatePlatformKeys({ mtls: false });
  const open = async (schema: string, m: Parameters<typeof migrate>[2], max = 5, embedded = false): Promise<Database> => {
    const d = embedded ? await createPgliteDatabase({ dataDir: 'memory://', schema }) : createPgDatabase({ url: db.url, schema, max });
    stops.push(() => d.close());
    await migrate(d, schema, m);
    return d;
  };
  try {
    const prDb = await open(PROJECTS_SCHEMA, projectsMigrations);
    const pr = await startProjectsService({ auth: keys.authFor('projects'), db: prDb, transport, logger, port: 0, overdueSweepMs: 0 });
    stops.push(() => pr.stop());
    const projectsClient = createClient<projects.ProjectsServer>(projects.ProjectsClient, projects.ProjectsService, `127.0.0.1:${pr.port}`, {
      auth: keys.authFor('gateway'),
      audience: 'projects',
    });
    stops.push(async () => projectsClient.close());
    const mdDb = await open(SCHEMA, migrations, 10, opts.embedded);
    let dataPort: number | undefined;
    const services: RunningService[] = [];
    const replica = async (o: ReplicaOptions = {}) => {
      const svc: RunningService = await startMonitoringDataService({
        auth: keys.authFor('monitoring-data'),
        db: mdDb,
        transport,
        logger,
        port: 0,
        projects: `127.0.0.1:${pr.port}`,
        contextTtlMs: o.contextTtlMs ?? opts.contextTtlMs ?? 2000,
        batchPollMs: 100,
        ...((o.recomputeBatch ?? opts.recomputeBatch) ? { recomputeBatch: o.recomputeBatch ?? opts.recomputeBatch } : {}),
        alarms: { staleCheckMs: 0, ...opts.alarms, ...o.alarms },
        ...((o.clock ?? opts.clock) ? { clock: o.clock ?? opts.clock } : {}),
        ...(opts.rollupFoldMs !== undefined ? { rollupFoldMs: opts.rollupFoldMs } : {}),
        ...(o.batchChunk ? { batchChunk: o.batchChunk } : {}),
        imports: { pollMs: 100, ...o.imports },
      });
      services.push(svc);
      stops.push(() => svc.stop());
      dataPort ??= svc.port;
      const client = createClient<monitoringData.MonitoringDataServer>(
        monitoringData.MonitoringDataClient,
        monitoringData.MonitoringDataService,
        `127.0.0.1:${svc.port}`,
        {
          auth: keys.authFor('gateway'),
          audience: 'monitoring-data',
        },
      );
      stops.push(async () => client.close());
      return client;
    };
    const data = await replica();
    // Changes in projects hand their ingest version to monitoring-data, as in the platform (ADR 0022).
    pr.connectIngestVersions(`127.0.0.1:${dataPort}`);
    const caller: CallerContext = {
      requestId: 'req_test',
      tenantId: 'ten_test0000000000000001',
      environment: 'live',
      principalId: 'key_test0000000000000001',
      principalType: 'api_key',
      permissions: ['project:read', 'project:write', 'data:read', 'data:write'],
    };
    let seq = 0;
    const h: Harness = {
      db,
      published,
      data,
      projects: projectsClient,
      dataDb: mdDb,
      caller,
      keys,
      dataAddress: `127.0.0.1:${dataPort}`,
      replica,
      services,
      rows: (sql, params = []) => queryTestDatabase(db.url, sql, params),
      outbox: () => queryTestDatabase(db.url, 'SELECT event_type, data::json AS data FROM monitoring_data.outbox ORDER BY seq'),
      async project(o = {}) {
        seq++;
        const p = await projectsClient.createProject(
          {
            name: o.name ?? `Tunnel section ${seq}`,
            number: `T-${seq}-${Date.now()}`,
            startDate: o.startDate ?? '2026-01-01',
            bounds: { minX: 3_000_000, maxX: 4_000_000, minY: 400_000, maxY: 600_000, minZ: -100, maxZ: 500 },
          },
          caller,
        );
        const points: projects.Point[] = [];
        for (const [i, spec] of (o.points ?? [{}]).entries()) {
          points.push(
            await projectsClient.createPoint(
              {
                projectId: p.id,
                number: `P${i + 1}`,
                name: `Crown settlement P${i + 1}`,
                sensorType: 'total_station',
                reference: { x: 3512345.1, y: 512345.6, z: 45.3 },
                warningThreshold: 10,
                alarmThreshold: 20,
                ...spec,
              },
              caller,
            ),
          );
        }
        // Points first: an archived project takes none.
        if ((o.status ?? 'in_progress') !== 'not_started') await projectsClient.changeProjectStatus({ id: p.id, status: 'in_progress' }, caller);
        if (o.status === 'archived' || o.status === 'completed' || o.status === 'paused') {
          await projectsClient.changeProjectStatus({ id: p.id, status: o.status === 'paused' ? 'paused' : 'completed' }, caller);
          if (o.status === 'archived') await projectsClient.changeProjectStatus({ id: p.id, status: 'archived' }, caller);
        }
        return { id: p.id, name: p.name, points };
      },
      async stop() {
        for (const s of stops.reverse()) await s().catch(() => undefined);
        await db.drop();
      },
    };
    return h;
  } catch (err) {
    for (const s of stops.reverse()) await s().catch(() => undefined);
    await db.drop();
    throw err;
  }
}

export interface RecordIn {
  point_id: string;
  measured_at: string;
  values: Partial<Record<'x' | 'y' | 'z' | 'dx' | 'dy' | 'dz', number>>;
  precision?: number;
  /** instrument channels by name (docs/instruments.md) */
  channels?: Record<string, number>;
}

/** The compressed channel rows of the records (RecordColumns' channel_* columns); all empty without any. */
function channelColumns(records: RecordIn[]) {
  if (!records.some((r) => r.channels)) return { channelNames: [], channelOffset: [], channelIndex: [], channelValue: [] };
  const channelNames: string[] = [];
  const channelOffset: number[] = [];
  const channelIndex: number[] = [];
  const channelValue: number[] = [];
  for (const r of records) {
    channelOffset.push(channelIndex.length);
    for (const [name, v] of Object.entries(r.channels ?? {})) {
      let k = channelNames.indexOf(name);
      if (k < 0) k = channelNames.push(name) - 1;
      channelIndex.push(k);
      channelValue.push(v);
    }
  }
  channelOffset.push(channelIndex.length);
  return { channelNames, channelOffset, channelIndex, channelValue };
}

/**
 * API-shaped records → the contract's columns: plain, or in the dictionary form the gateway sends
 * (each distinct point id and instant once, records pointing at them).
 */
export function columns(records: RecordIn[], form: 'plain' | 'dictionary' = 'plain'): monitoringData.RecordColumns {
  const col = (k: 'x' | 'y' | 'z' | 'dx' | 'dy' | 'dz') => records.map((r) => r.values[k] ?? NaN_);
  const values = {
    x: col('x'),
    y: col('y'),
    z: col('z'),
    dx: col('dx'),
    dy: col('dy'),
    dz: col('dz'),
    precision: records.some((r) => r.precision !== undefined) ? records.map((r) => r.precision ?? NaN_) : [],
    ...channelColumns(records),
  };
  if (form === 'plain')
    return {
      pointId: records.map((r) => r.point_id),
      measuredAt: records.map((r) => r.measured_at),
      pointIds: [],
      pointIndex: [],
      instants: [],
      instantIndex: [],
      ...values,
    };
  const pointIds = [...new Set(records.map((r) => r.point_id))];
  const instants = [...new Set(records.map((r) => r.measured_at))];
  return {
    pointId: [],
    measuredAt: [],
    pointIds,
    pointIndex: records.map((r) => pointIds.indexOf(r.point_id)),
    instants,
    instantIndex: records.map((r) => instants.indexOf(r.measured_at)),
    ...values,
  };
}
