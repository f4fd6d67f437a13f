import { eventDataContractProblems, queryTestDatabase, waitUntil } from '@mp/testing';
import type { TestPlatform } from './platform.js';

export interface StreamEvent {
  event_id: string;
  event_type: string;
  tenant_id: string;
  environment: string;
  occurred_at: string;
  data: Record<string, any>;
}

/**
 * The domain events on the test platform's JetStream stream, once the projects service's outbox has
 * been relayed completely (so "no event after a refusal" is a real absence, not a delay), each
 * checked against the data schema the API reference gives its type.
 */
export async function projectsEvents(t: TestPlatform): Promise<StreamEvent[]> {
  await waitUntil(
    async () => (await queryTestDatabase<{ n: number }>(t.db.url, 'SELECT count(*)::int AS n FROM projects.outbox WHERE dispatched_at IS NULL'))[0]!.n === 0,
    { message: 'projects outbox not relayed in time' },
  );
  const events = (await t.stream.messages()).map((m) => m.data as StreamEvent);
  // Every event's data is what the event catalogue (and so the API reference) promises receivers.
  const problems = events.flatMap((e) => eventDataContractProblems(e.event_type, e.data).map((p) => `${e.event_type} ${e.event_id}: ${p}`));
  if (problems.length) throw new Error(`Events break docs/openapi.json (webhooks):\n  ${problems.join('\n  ')}`);
  return events;
}
