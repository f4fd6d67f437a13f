import { createTestDatabase, queryTestDatabase, type TestDatabase } from '@mp/testing';
import { startProcess } from '../support/process.js';

// ADR 0094: the chart's migration Job runs `node services/<name>/dist/migrate.js` for every
// service before an upgrade (and `npm run db:migrate` does the same): each brings its schema to
// this version, says what it applied, and refuses without a database.
const SERVICES = { identity: 'identity', projects: 'projects', 'monitoring-data': 'monitoring_data', reports: 'reports', webhooks: 'webhooks' };

describe('the migration step of each service', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });

  const migrate = async (service: string, env: Record<string, string>) => {
    const proc = startProcess(process.execPath, [`services/${service}/dist/migrate.js`], { env: { PATH: process.env.PATH, ...env } });
    const code = await new Promise<number | null>((resolve) => proc.child.once('exit', resolve));
    return { code, lines: proc.output().trim().split('\n') };
  };
  const applied = async (schema: string) =>
    (await queryTestDatabase<{ id: string }>(db.url, `SELECT id FROM ${schema}.schema_migrations ORDER BY id`)).map((r) => r.id);

  it('applies every migration of its schema once, then finds it current', async () => {
    for (const [service, schema] of Object.entries(SERVICES)) {
      const first = await migrate(service, { MP_DATABASE_URL: db.url });
      expect({ service, code: first.code }).toEqual({ service, code: 0 });
      const log = JSON.parse(first.lines.at(-1)!);
      const ids = await applied(schema);
      expect(ids.length).toBeGreaterThan(0);
      expect(log).toMatchObject({ msg: 'migrations applied', schema, applied: ids, known: ids.length });

      const again = await migrate(service, { MP_DATABASE_URL: db.url });
      expect(again.code).toBe(0);
      expect(JSON.parse(again.lines.at(-1)!)).toMatchObject({ msg: 'schema is current', schema, applied: [] });
      expect(await applied(schema)).toEqual(ids);
    }
  }, 120_000);

  it('refuses in one line without MP_DATABASE_URL', async () => {
    const { code, lines } = await migrate('reports', {});
    expect(code).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('MP_DATABASE_URL is not set');
  });
});
