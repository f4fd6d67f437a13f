import { eventId, type FaultPlatform } from './platform.js';
import type { CountingReceiver } from './receiver.js';

export const EVENTS = 10_000;
const CHUNK = 500;

/** How far a writeStream got: chunks committed, and chunk writes that failed (and were tried again). */
export interface WriteProgress {
  committedChunks: number;
  failedWrites: number;
}

/**
 * Commits EVENTS events to the producer's outbox in chunks of 500, every `pauseMs`, as a busy
 * producer would; resolves when all are committed. Chunks that fail (the database restarting)
 * are tried again, as a client would retry its write. `progress` counts both as they happen.
 */
export async function writeStream(p: FaultPlatform, pauseMs = 100, progress: WriteProgress = { committedChunks: 0, failedWrites: 0 }): Promise<void> {
  for (let first = 1; first <= EVENTS; first += CHUNK) {
    for (;;) {
      try {
        await p.writeEvents(first, Math.min(EVENTS, first + CHUNK - 1));
        progress.committedChunks++;
        break;
      } catch {
        progress.failedWrites++;
        // The writer's own pause before it tries again, as a client paces its retries.
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    // The pace of a busy producer, not a wait for anything.
    await new Promise((r) => setTimeout(r, pauseMs));
  }
}

/** Every event 1..EVENTS that the receiver never acknowledged. */
export function missing(r: CountingReceiver): string[] {
  const out: string[] = [];
  for (let n = 1; n <= EVENTS; n++) if (!r.accepted.has(eventId(n))) out.push(eventId(n));
  return out;
}

/** Resolves once `check` holds, polling every `everyMs`. */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string, everyMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * Resolves once every one of `expected` deliveries is recorded delivered. A receiver can have
 * acknowledged a delivery whose outcome is not yet recorded: the worker records it just after the
 * answer, and one in flight when its process died is sent again once its lease lapses (the
 * attempt timeout + 10 s).
 */
export async function allDelivered(p: FaultPlatform, expected: number, timeoutMs = 60_000): Promise<void> {
  await until(
    async () => (await p.sql<{ n: number }>("SELECT count(*)::int AS n FROM webhooks.deliveries WHERE status = 'delivered'"))[0]!.n >= expected,
    timeoutMs,
    `${expected} deliveries recorded delivered`,
    200,
  );
}
