import { startCountingReceiver, type CountingReceiver } from './support/receiver.js';
import { reportDuplicates, startFaultPlatform, type FaultPlatform } from './support/platform.js';
import { allDelivered, EVENTS, missing, until, writeStream } from './support/stream.js';

// kill -9 of a producing service between its commit and the publish. The projects
// service is killed while its outbox holds committed events its relay has not published yet
// (and, likely, a batch published but not yet marked); events keep being committed while it is
// down. Restarted, its relay publishes what is left; JetStream drops re-published ones by
// Nats-Msg-Id = event_id.
describe('kill -9 of the producing service between commit and publish', () => {
  let p: FaultPlatform;
  let receiver: CountingReceiver;
  const undispatched = async () => (await p.sql<{ n: number }>('SELECT count(*)::int AS n FROM projects.outbox WHERE dispatched_at IS NULL'))[0]!.n;
  const committed = async () => (await p.sql<{ n: number }>('SELECT count(*)::int AS n FROM projects.outbox'))[0]!.n;

  beforeAll(async () => {
    p = await startFaultPlatform();
    receiver = await startCountingReceiver('site-office');
    await p.startProjects();
    await p.startWebhooks();
    await p.createWebhook(receiver.name, receiver.url);
  });
  afterAll(async () => {
    await p?.stop();
    await receiver?.close();
  });

  it('loses no event and publishes none twice', async () => {
    const writing = writeStream(p);
    // Early in the stream (most events still to be written), so that writes go on after the kill.
    await until(async () => (await committed()) >= 1500, 60_000, 'the stream to flow');
    // The relay empties a freshly committed chunk within tens of milliseconds: look closely for a
    // moment when committed events wait for it, and kill right then.
    await until(async () => (await undispatched()) > 0, 30_000, 'events waiting in the outbox', 1);
    await p.projects!.stop('SIGKILL');
    const committedAtKill = await committed();
    // While the producer is down, its outbox fills up: committed, not published. (Measured after
    // these commits: right at the kill the relay may just have caught up, which is a race.)
    await until(async () => Math.min(EVENTS, committedAtKill + 1000) <= (await committed()), 30_000, 'more commits');
    const waitingWhileDown = await undispatched();
    const stalled = receiver.accepted.size;
    await p.startProjects();
    await writing;
    await receiver.waitForAccepted(EVENTS, 120_000);
    await allDelivered(p, EVENTS);

    expect(waitingWhileDown).toBeGreaterThan(0);
    expect(stalled).toBeLessThan(EVENTS);
    expect(missing(receiver)).toEqual([]);
    expect(await undispatched()).toBe(0);
    expect(await p.streamMessages()).toBe(EVENTS);
    expect(await p.sql('SELECT status, count(*)::int AS n FROM webhooks.deliveries GROUP BY status')).toEqual([{ status: 'delivered', n: EVENTS }]);
    reportDuplicates('kill -9 producer', [receiver]);
    expect(receiver.duplicates()).toEqual([]);
  }, 180_000);
});
