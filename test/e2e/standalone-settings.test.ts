import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generatePlatformKeys, keyFileSettings, type Party } from '@mp/grpc';
import { newMasterKey } from '@mp/kit';
import { createTestDatabase, parseStrictJson, queryTestDatabase, TEST_NATS_URL, type TestDatabase } from '@mp/testing';
import { startProcess } from '../support/process.js';

// ADR 0045: a standalone service started without the infrastructure it needs refuses to start in
// one line naming the setting, instead of falling back to the embedded adapters (PGlite, the
// in-process event transport, a key file of its own) that only `npm start` may use.
describe('a standalone process without its infrastructure settings', () => {
  let dir: string;
  let keysDir: string;
  let db: TestDatabase;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mp-settings-'));
    keysDir = join(dir, 'keys');
    (await generatePlatformKeys({ mtls: false })).writeFiles(keysDir);
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const full = () => ({
    MP_DATABASE_URL: db.url,
    MP_NATS_URL: TEST_NATS_URL,
    MP_SECRETS_KEY: newMasterKey(),
    MP_REDIS_URL: process.env.MP_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
  });

  async function refusal(service: Party, unset: string[]): Promise<{ code: number | null; lines: string[] }> {
    const env: Record<string, string | undefined> = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      MP_DATA_DIR: join(dir, service),
      MP_OPS_PORT: '0',
      ...keyFileSettings(keysDir, service),
      ...full(),
    };
    for (const name of unset) delete env[name];
    const p = startProcess(process.execPath, [`services/${service}/dist/main.js`], { env });
    const code = await new Promise<number | null>((resolve) => p.child.once('exit', resolve));
    return { code, lines: p.output().trim().split('\n') };
  }

  it.each([
    ['identity', 'MP_DATABASE_URL', 'its PostgreSQL database (postgres://…) (MP_DATABASE_URL)'],
    ['projects', 'MP_NATS_URL', 'NATS JetStream, which carries its events to the other services (MP_NATS_URL)'],
    ['monitoring-data', 'MP_DATABASE_URL', 'its PostgreSQL database (postgres://…) (MP_DATABASE_URL)'],
    ['webhooks', 'MP_SECRETS_KEY', 'the master key every replica shares to seal and read stored secrets (32 random bytes, base64) (MP_SECRETS_KEY)'],
    ['gateway', 'MP_REDIS_URL', 'Redis, where the gateway replicas count rate limits together (MP_REDIS_URL)'],
  ] as const)('%s without %s exits 1 with one line naming it', async (service, setting, why) => {
    const { code, lines } = await refusal(service, [setting]);
    expect(code).toBe(1);
    expect(lines).toHaveLength(1);
    expect(parseStrictJson(lines[0]!)).toMatchObject({
      level: 60,
      service,
      setting,
      msg: `cannot start: ${setting} is not set: a standalone ${service} process needs ${why}. The embedded adapters serve only \`npm start\`.`,
    });
  });

  it('names every missing setting in the one line, and opens nothing', async () => {
    const { code, lines } = await refusal('identity', ['MP_NATS_URL', 'MP_SECRETS_KEY']);
    expect(code).toBe(1);
    expect(lines).toHaveLength(1);
    expect(parseStrictJson(lines[0]!)).toMatchObject({
      level: 60,
      setting: 'MP_NATS_URL, MP_SECRETS_KEY',
      msg: expect.stringMatching(/^cannot start: MP_NATS_URL, MP_SECRETS_KEY are not set: /),
    });
    // No embedded fallback was made: no data folder, no key file, no schema.
    expect(readdirSync(dir).sort()).toEqual(['keys']);
    expect(await queryTestDatabase(db.url, "SELECT 1 FROM information_schema.schemata WHERE schema_name = 'identity'")).toEqual([]);
  });
});
