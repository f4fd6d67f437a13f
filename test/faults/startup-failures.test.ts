import net from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generatePlatformKeys, keyFileSettings } from '@mp/grpc';
import { newMasterKey } from '@mp/kit';
import { createTestDatabase, parseStrictJson, queryTestDatabase, TEST_NATS_URL, type TestDatabase } from '@mp/testing';
import { startProcess } from '../support/process.js';

// ADR 0038: a process that cannot start says so in one JSON log line naming the setting to
// change, and exits 1, before it opened anything else.
describe('start-up failures: one line naming the setting', () => {
  let dir: string;
  let keyEnv: Record<string, string>;
  let blocker: net.Server;
  let takenPort: number;
  let db: TestDatabase;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mp-startup-'));
    const keys = await generatePlatformKeys({ mtls: false });
    keys.writeFiles(join(dir, 'keys'));
    keyEnv = keyFileSettings(join(dir, 'keys'), 'identity') as Record<string, string>;
    db = await createTestDatabase();
    blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    takenPort = (blocker.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => blocker.close(resolve));
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = async (env: Record<string, string>) => {
    const p = startProcess(process.execPath, ['services/identity/dist/main.js'], {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        MP_DATA_DIR: dir,
        MP_IDENTITY_GRPC_PORT: '0',
        MP_OPS_PORT: '0',
        // the settings a standalone identity needs (ADR 0045); each case breaks one of them
        MP_DATABASE_URL: db.url,
        MP_NATS_URL: TEST_NATS_URL,
        MP_SECRETS_KEY: newMasterKey(),
        ...keyEnv,
        ...env,
      },
    });
    const code = await new Promise<number | null>((resolve) => p.child.once('exit', resolve));
    const lines = p
      .output()
      .split('\n')
      // the info line of the ops server, started first, aside: the failure is the one line left
      .filter((l) => l.length > 0 && !l.includes('"level":30,'));
    return { code, lines };
  };

  it('names MP_OPS_PORT when the ops port is taken', async () => {
    const { code, lines } = await run({ MP_OPS_PORT: String(takenPort), MP_OPS_HOST: '127.0.0.1' });
    expect(code).toBe(1);
    expect(lines).toHaveLength(1);
    expect(parseStrictJson(lines[0]!)).toMatchObject({
      level: 60,
      service: 'identity',
      setting: 'MP_OPS_PORT',
      msg: expect.stringMatching(new RegExp(`^cannot start: MP_OPS_PORT: port ${takenPort} on 127.0.0.1 is taken`)),
    });
  });

  it('names MP_IDENTITY_GRPC_PORT when the gRPC port is taken', async () => {
    const { code, lines } = await run({ MP_IDENTITY_GRPC_PORT: String(takenPort), MP_DATABASE_URL: db.url });
    expect(code).toBe(1);
    const fatal = lines.map((l) => parseStrictJson(l) as Record<string, unknown>).filter((r) => r.level === 60);
    expect(fatal).toEqual([
      expect.objectContaining({ setting: 'MP_IDENTITY_GRPC_PORT', msg: expect.stringContaining(`port ${takenPort} on 127.0.0.1 is taken`) }),
    ]);
  });

  it("names MP_HTTPS_PORT when the gateway's port is taken", async () => {
    const p = startProcess(process.execPath, ['services/gateway/dist/main.js'], {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        MP_DATA_DIR: dir,
        MP_OPS_PORT: '0',
        MP_REDIS_URL: process.env.MP_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
        MP_HTTPS_PORT: String(takenPort),
        MP_SANDBOX_HTTPS_PORT: '0',
        MP_BIND_HOST: '127.0.0.1',
        ...(keyFileSettings(join(dir, 'keys'), 'gateway') as Record<string, string>),
      },
    });
    expect(await new Promise<number | null>((resolve) => p.child.once('exit', resolve))).toBe(1);
    const fatal = p
      .output()
      .split('\n')
      .filter((l) => l.length > 0)
      .map((l) => parseStrictJson(l) as Record<string, unknown>)
      .filter((r) => r.level === 60);
    expect(fatal).toEqual([
      expect.objectContaining({ service: 'gateway', setting: 'MP_HTTPS_PORT', msg: expect.stringContaining(`port ${takenPort} on 127.0.0.1 is taken`) }),
    ]);
  });

  it('names MP_DATABASE_URL when the database cannot be reached', async () => {
    // port 1: nothing listens there, the connection is refused
    const { code, lines } = await run({ MP_DATABASE_URL: 'postgres://postgres@127.0.0.1:1/postgres' });
    expect(code).toBe(1);
    expect(lines).toHaveLength(1);
    expect(parseStrictJson(lines[0]!)).toMatchObject({
      level: 60,
      service: 'identity',
      setting: 'MP_DATABASE_URL',
      msg: expect.stringContaining('cannot reach the database'),
    });
  });

  it('names MP_SECRETS_KEY when the key is malformed, before the database is touched', async () => {
    const fresh = await createTestDatabase();
    try {
      const { code, lines } = await run({ MP_SECRETS_KEY: 'not-a-key', MP_DATABASE_URL: fresh.url });
      expect(code).toBe(1);
      expect(lines).toHaveLength(1);
      expect(parseStrictJson(lines[0]!)).toMatchObject({
        level: 60,
        service: 'identity',
        setting: 'MP_SECRETS_KEY',
        msg: expect.stringContaining('32 bytes'),
      });
      // nothing was opened: no schema in the database
      expect(await queryTestDatabase(fresh.url, "SELECT 1 FROM information_schema.schemata WHERE schema_name = 'identity'")).toEqual([]);
    } finally {
      await fresh.drop();
    }
  });

  it('names the OTel variable of a tracing setting it cannot use', async () => {
    const { code, lines } = await run({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' });
    expect(code).toBe(1);
    expect(lines).toHaveLength(1);
    expect(parseStrictJson(lines[0]!)).toMatchObject({ level: 60, setting: 'OTEL_EXPORTER_OTLP_PROTOCOL' });
  });
});
