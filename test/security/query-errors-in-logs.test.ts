import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPgDatabase, createPgliteDatabase, type Database } from '@mp/db';
import { createLogger } from '@mp/kit';
import { queryTestDatabase } from '@mp/testing';
import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';

// A failed SQL statement is logged with its name and the database's error, never with the
// values it was run with: tenant data does not belong in logs, whichever driver ran it.
describe('failed statements in the logs', () => {
  const SECRET = 'Quayside 7 owner Zhang Wei 13812345678';
  let t: TestPlatform;
  const lines: string[] = [];
  const logger = () => createLogger('test', 'info', { write: (s: string) => void lines.push(s) });
  const logged = () => lines.join('');

  beforeAll(async () => {
    t = await startTestPlatform({}, { logger: logger() });
  }, 120_000);
  afterAll(async () => {
    await t?.stop();
  });

  it('logs a statement the database refused through the API by its name and SQLSTATE, without the row it was given', async () => {
    const key = { 'x-api-key': await t.apiKey(['project:read', 'project:write']) };
    // A database that refuses this one row (as a constraint added by an operator would): the
    // statement fails inside the projects service, which logs it and answers 500.
    await queryTestDatabase(t.db.url, `ALTER TABLE projects.projects ADD CONSTRAINT refuse_one CHECK (name <> '${SECRET}')`);
    lines.length = 0;
    const res = await t.api('POST', '/projects', { headers: key, body: { name: SECRET, number: 'SECRET-1' } });
    expectError(res, 500001);
    const failure = lines.map((l) => JSON.parse(l)).find((l) => l.err?.code === '23514');
    expect(failure).toBeDefined();
    expect(failure.err.type).toBe('QueryError');
    // The prepared statement's name (projects_create), or the start of its SQL text.
    expect(failure.err.statement).toMatch(/projects/);
    expect(failure.err.constraint).toBe('refuse_one');
    expect(logged()).not.toContain(SECRET);
    expect(logged()).not.toContain('SECRET-1');
  });

  it('keeps values out of the errors of both drivers: PostgreSQL and the embedded PGlite', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mp-query-errors-'));
    const databases: Database[] = [
      createPgDatabase({ url: t.db.url, schema: 'public', max: 1 }),
      await createPgliteDatabase({ dataDir: join(dir, 'data'), schema: 'public' }),
    ];
    try {
      for (const db of databases) {
        await db.exec('CREATE TABLE IF NOT EXISTS query_error_probe (name text PRIMARY KEY)');
        await db.query('INSERT INTO query_error_probe (name) VALUES ($1)', [SECRET]);
        const failures = [
          // unique violation: the driver's detail quotes the key
          await db.query('INSERT INTO query_error_probe (name) VALUES ($1)', [SECRET]).catch((e: unknown) => e),
          // data exception: the message quotes the value
          await db.query('SELECT $1::int AS n', [SECRET]).catch((e: unknown) => e),
        ];
        for (const err of failures) {
          lines.length = 0;
          logger().error({ err }, 'statement failed');
          const line = JSON.parse(lines[0]!);
          expect({ kind: db.kind, type: line.err.type, code: line.err.code }).toEqual({
            kind: db.kind,
            type: 'QueryError',
            code: expect.stringMatching(/^2[23]/),
          });
          expect(line.err.statement).toMatch(/^(INSERT INTO query_error_probe|SELECT \$1::int)/);
          expect({ kind: db.kind, secret: lines[0]!.includes(SECRET) || lines[0]!.includes('Zhang') }).toEqual({ kind: db.kind, secret: false });
        }
        await db.exec('DROP TABLE query_error_probe');
      }
    } finally {
      for (const db of databases) await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
