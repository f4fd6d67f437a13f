import { queryTestDatabase, waitUntil } from '@mp/testing';
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
 * been relayed completely (so "no event after a refusal" is a real absence, not a delay).
 */
export async function projectsEvents(t: TestPlatform): Promise<StreamEvent[]> {
  await waitUntil(
    async () => (await queryTestDatabase<{ n: number }>(t.db.url, 'SELECT count(*)::int AS n FROM projects.outbox WHERE dispatched_at IS NULL'))[0]!.n === 0,
    { message: 'projects outbox not relayed in time' },
  );
  return (await t.stream.messages()).map((m) => m.data as StreamEvent);
}
