import { startPrivateNats, type PrivateNats } from './support/infra.js';
import { startCountingReceiver, type CountingReceiver } from './support/receiver.js';
import { reportDuplicates, startFaultPlatform, type FaultPlatform } from './support/platform.js';
import { allDelivered, EVENTS, missing, until, writeStream, type WriteProgress } from './support/stream.js';

// NATS restarted while events are written. A nats-server of this test's own (free port,
// own JetStream store), so the test files that share the machine's server are not disturbed. It
// is killed (SIGKILL, no clean shutdown) while the producer commits events and the webhooks
// service consumes them, and started again on the same store.
describe('NATS JetStream restarted while events are written', () => {
  let nats: PrivateNats;
  let p: FaultPlatform;
  const receivers: CountingReceiver[] = [];

  beforeAll(async () => {
    nats = await startPrivateNats();
    p = await startFaultPlatform({ nats });
    receivers.push(await startCountingReceiver('site-office'), await startCountingReceiver('control-room'));
    await p.startProjects();
    await p.startWebhooks();
    for (const r of receivers) await p.createWebhook(r.name, r.url);
  });
  afterAll(async () => {
    await p?.stop();
    await nats?.destroy();
    await Promise.all(receivers.map((r) => r.close()));
  });

  it('loses no event', async () => {
    const progress: WriteProgress = { committedChunks: 0, failedWrites: 0 };
    const writing = writeStream(p, 100, progress);
    await receivers[0]!.waitForAccepted(2000, 60_000);
    await nats.stop('SIGKILL');
    const acceptedWhileDown = receivers[0]!.accepted.size;
    const chunksAtKill = progress.committedChunks;
    // Commits go on while the server is away; the relay keeps them in the outbox. The server stays
    // away until two more chunks are committed (or the last one, if the stream is that far).
    await until(() => progress.committedChunks >= Math.min(chunksAtKill + 2, EVENTS / 500), 60_000, 'commits while NATS is down');
    const waitingWhileDown = (await p.sql<{ n: number }>('SELECT count(*)::int AS n FROM projects.outbox WHERE dispatched_at IS NULL'))[0]!.n;
    await nats.start();
    await writing;
    for (const r of receivers) await r.waitForAccepted(EVENTS, 120_000);
    await allDelivered(p, EVENTS * receivers.length);

    expect(acceptedWhileDown).toBeLessThan(EVENTS);
    if (chunksAtKill < EVENTS / 500) expect(waitingWhileDown).toBeGreaterThan(0);
    for (const r of receivers) expect(missing(r)).toEqual([]);
    expect(await p.sql('SELECT count(*)::int AS n FROM projects.outbox WHERE dispatched_at IS NULL')).toEqual([{ n: 0 }]);
    expect(await p.streamMessages()).toBe(EVENTS);
    expect(await p.sql('SELECT status, count(*)::int AS n FROM webhooks.deliveries GROUP BY status')).toEqual([
      { status: 'delivered', n: EVENTS * receivers.length },
    ]);
    reportDuplicates('NATS restart', receivers);
  }, 180_000);
});
