import { connect } from 'nats';
import { randomToken } from '@mp/kit';

export const TEST_NATS_URL = process.env.MP_TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

export interface TestStream {
  url: string;
  stream: string;
  subjectPrefix: string;
  /** Reads every message in the stream (for asserting emitted events). */
  messages(): Promise<{ subject: string; msgId: string | undefined; data: any }[]>;
  drop(): Promise<void>;
}

/** Stream and subject names unique to one test file. */
export function createTestStream(): TestStream {
  const id = randomToken(10);
  const stream = `MP_T_${id.toUpperCase()}`;
  const subjectPrefix = `mpt_${id}.events`;
  return {
    url: TEST_NATS_URL,
    stream,
    subjectPrefix,
    async messages() {
      const nc = await connect({ servers: TEST_NATS_URL });
      try {
        const jsm = await nc.jetstreamManager();
        const info = await jsm.streams.info(stream).catch(() => null);
        if (!info) return [];
        const out: { subject: string; msgId: string | undefined; data: any }[] = [];
        for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
          const m = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
          if (!m) continue;
          out.push({ subject: m.subject, msgId: m.header?.get('Nats-Msg-Id'), data: m.json() });
        }
        return out;
      } finally {
        await nc.close();
      }
    },
    async drop() {
      const nc = await connect({ servers: TEST_NATS_URL });
      try {
        const jsm = await nc.jetstreamManager();
        await jsm.streams.delete(stream).catch(() => undefined);
      } finally {
        await nc.close();
      }
    },
  };
}
