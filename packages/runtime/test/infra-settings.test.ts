import { connect, type NatsConnection } from 'nats';
import { outgoing } from '@mp/events';
import { createLogger, newId } from '@mp/kit';
import { openTransport, parseInfraConfig } from '@mp/runtime';
import { createTestStream, type TestStream } from '@mp/testing';

// ADR 0046: the event stream's retention (age, bytes, replicas) is the operator's setting, applied
// when the stream is made and again whenever a process starts with different limits.
describe('JetStream retention settings', () => {
  const logger = createLogger('test', 'silent');
  let stream: TestStream;
  let nc: NatsConnection;
  const env = (extra: Record<string, string>) => ({
    MP_NATS_URL: stream.url,
    MP_NATS_STREAM: stream.stream,
    MP_NATS_SUBJECT_PREFIX: stream.subjectPrefix,
    ...extra,
  });
  const limits = async () => {
    const { config, state } = await (await nc.jetstreamManager()).streams.info(stream.stream);
    return {
      max_age: config.max_age,
      max_bytes: config.max_bytes,
      num_replicas: config.num_replicas,
      allow_direct: config.allow_direct,
      messages: state.messages,
    };
  };

  beforeEach(async () => {
    stream = createTestStream();
    nc = await connect({ servers: stream.url });
  });
  afterEach(async () => {
    await nc.close();
    await stream.drop();
  });

  it('makes the stream with the default limits: 7 days, no size limit, one copy', async () => {
    const t = await openTransport(parseInfraConfig(env({})), logger);
    await t.close();
    expect(await limits()).toEqual({ max_age: 7 * 24 * 3600 * 1e9, max_bytes: -1, num_replicas: 1, allow_direct: true, messages: 0 });
  });

  it('applies changed limits to the running stream and keeps its messages', async () => {
    const first = await openTransport(parseInfraConfig(env({ MP_NATS_MAX_AGE_HOURS: '2', MP_NATS_MAX_BYTES: '67108864' })), logger);
    await first.publish(
      outgoing({
        event_id: newId('event'),
        event_type: 'project.created',
        tenant_id: 'ten_1',
        environment: 'live',
        occurred_at: new Date().toISOString(),
        data: { project_id: 'prj_1' },
      }),
    );
    await first.close();
    expect(await limits()).toEqual({ max_age: 2 * 3600 * 1e9, max_bytes: 67108864, num_replicas: 1, allow_direct: true, messages: 1 });

    const second = await openTransport(parseInfraConfig(env({ MP_NATS_MAX_AGE_HOURS: '0.5', MP_NATS_MAX_BYTES: '-1' })), logger);
    await second.close();
    expect(await limits()).toEqual({ max_age: 1800 * 1e9, max_bytes: -1, num_replicas: 1, allow_direct: true, messages: 1 });
  });

  it('refuses to start with more replicas than the server can keep, naming the setting; the stream is unchanged', async () => {
    await (await openTransport(parseInfraConfig(env({})), logger)).close();
    await expect(openTransport(parseInfraConfig(env({ MP_NATS_REPLICAS: '3' })), logger)).rejects.toThrow(
      /cannot keep it .*: the NATS server is not part of a cluster, so it keeps one copy; set MP_NATS_REPLICAS=1$/,
    );
    expect((await limits()).num_replicas).toBe(1);
  });

  it('refuses limits outside their ranges when the settings are read', () => {
    expect(() => parseInfraConfig(env({ MP_NATS_MAX_BYTES: '1000' }))).toThrow(/MP_NATS_MAX_BYTES: -1 \(no limit\) or at least 1048576/);
    expect(() => parseInfraConfig(env({ MP_NATS_REPLICAS: '7' }))).toThrow(/MP_NATS_REPLICAS/);
  });
});

describe('MP_SECRETS_KEY when the settings are read', () => {
  it('takes one key or a ring, and refuses a malformed or repeated key naming the setting', () => {
    const [a, b] = [Buffer.alloc(32, 1).toString('base64'), Buffer.alloc(32, 2).toString('base64')];
    expect(parseInfraConfig({ MP_SECRETS_KEY: `${a},${b}` }).MP_SECRETS_KEY).toBe(`${a},${b}`);
    // Empty is unset, as shells and Helm values often pass it (a standalone process then refuses to start).
    expect(parseInfraConfig({ MP_SECRETS_KEY: '' }).MP_SECRETS_KEY).toBeUndefined();
    for (const bad of ['c2hvcnQ=', `${a},${a}`, `${a},`]) {
      expect(() => parseInfraConfig({ MP_SECRETS_KEY: bad })).toThrow(/MP_SECRETS_KEY: comma-separated keys of 32 bytes each/);
    }
  });
});
