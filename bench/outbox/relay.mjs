// Outbox relay publishing cost (ADR 0128). One command: `node bench/outbox/relay.mjs`.
//
// The relay of one producer draining a backlog of small events (the size of a project or alarm
// event) from PostgreSQL to NATS JetStream, two ways in the same run, round after round:
//   per event  each event its own JetStream request (js.publish), all of a claim in flight at once:
//              the relay before ADR 0128 (the transport's publishMany hidden from it)
//   batch      the claim sent back to back with one acknowledgement subscription (publishMany)
// Prints events/s and the CPU µs per event of this process (the relay), of PostgreSQL and of the
// NATS server, read from /proc and process.cpuUsage around each drain.
//
// Options (environment): BENCH_EVENTS=20000 (per variant and round)  BENCH_ROUNDS=3  BENCH_BATCH=200 (the relay's claim)
// BENCH_SMOKE=1: 400 events, one round (bench/support/smoke.mjs); the settings above still win
import { execFileSync } from 'node:child_process';
import { createPgDatabase, migrate } from '@mp/db';
import { appendEvents, NatsTransport, OutboxRelay, outboxMigrations } from '@mp/events';
import { createLogger } from '@mp/kit';
import { createTestDatabase, createTestStream } from '@mp/testing';
import { postgresStat, procStat } from '../process-stats.mjs';
import { setting } from '../support/smoke.mjs';

const EVENTS = Number(setting('BENCH_EVENTS', 20000, 400));
const ROUNDS = Number(setting('BENCH_ROUNDS', 3, 1));
const BATCH = Number(setting('BENCH_BATCH', 200, 200));
const logger = createLogger('bench', 'silent');

const natsCpuS = () =>
  execFileSync('pgrep', ['-x', 'nats-server'])
    .toString()
    .trim()
    .split('\n')
    .map(Number)
    .reduce((sum, pid) => sum + procStat(pid).cpuS, 0);
const ownCpuS = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

const tdb = await createTestDatabase();
const stream = createTestStream();
const db = createPgDatabase({ url: tdb.url, schema: 'producer' });
await migrate(db, 'producer', outboxMigrations);
const transport = await NatsTransport.connect({ url: stream.url, stream: stream.stream, subjectPrefix: stream.subjectPrefix, logger });
// The same transport with publishMany hidden: the relay then publishes each event on its own.
const perEvent = {
  messagingAttributes: (t) => transport.messagingAttributes(t),
  publish: (e) => transport.publish(e),
  subscribe: () => Promise.reject(new Error('not used')),
  close: async () => {},
};

/** Commits `n` small events to the outbox, 1,000 per transaction. */
async function backlog(n) {
  for (let i = 0; i < n; i += 1000) {
    const events = Array.from({ length: Math.min(1000, n - i) }, (_, j) => ({
      type: 'project.created',
      tenantId: 'ten_bench',
      environment: 'live',
      data: { project_id: `prj_${i + j}`, name: `Bench project ${i + j}`, status: 'active' },
    }));
    await db.transaction((tx) => appendEvents(tx, events));
  }
}

async function drainWith(t) {
  await backlog(EVENTS);
  const relay = new OutboxRelay({ db, transport: t, logger, batchSize: BATCH });
  const before = { own: ownCpuS(), pg: postgresStat().cpuS, nats: natsCpuS(), at: performance.now() };
  const n = await relay.drain();
  const seconds = (performance.now() - before.at) / 1000;
  if (n !== EVENTS) throw new Error(`drained ${n} of ${EVENTS} events`);
  const us = (s) => ((s * 1e6) / n).toFixed(1);
  return {
    rate: n / seconds,
    relay: us(ownCpuS() - before.own),
    pg: us(postgresStat().cpuS - before.pg),
    nats: us(natsCpuS() - before.nats),
  };
}

const rows = [];
try {
  // a warm-up of each, so neither pays for the first plans and connections
  await backlog(BATCH);
  await new OutboxRelay({ db, transport: perEvent, logger, batchSize: BATCH }).drain();
  await backlog(BATCH);
  await new OutboxRelay({ db, transport, logger, batchSize: BATCH }).drain();
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [name, t] of [
      ['per event', perEvent],
      ['batch', transport],
    ]) {
      const r = await drainWith(t);
      rows.push({ round, name, ...r });
      console.log(
        `round ${round}  ${name.padEnd(9)}  ${EVENTS} events  ${r.rate.toFixed(0).padStart(6)} events/s  CPU µs per event: relay ${r.relay}, PostgreSQL ${r.pg}, NATS ${r.nats}`,
      );
    }
  }
  const mean = (name, k) => rows.filter((r) => r.name === name).reduce((s, r) => s + Number(r[k]), 0) / ROUNDS;
  console.log(
    `mean: batch ${mean('batch', 'rate').toFixed(0)} events/s against per event ${mean('per event', 'rate').toFixed(0)} (${((mean('batch', 'rate') / mean('per event', 'rate')) * 100).toFixed(0)} %); ` +
      `relay CPU µs per event ${mean('batch', 'relay').toFixed(1)} against ${mean('per event', 'relay').toFixed(1)}`,
  );
} finally {
  await transport.close();
  await db.close();
  await tdb.drop();
  await stream.drop();
}
