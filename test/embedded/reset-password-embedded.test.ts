import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpsRequest } from '@mp/testing';
import { type StartedProcess, startProcess, userEnv } from '../support/process.js';

// A lost administrator password with `npm start`: the banner says how the administrator's password
// came about, and `npm run operator -- reset-password` (the credential in the data folder, while
// the platform runs) sets a new one and ends the old sessions (ADR 0076).
describe('npm start: the administrator password, told truly and reset', () => {
  let dataDir: string;
  let proc: StartedProcess | null = null;
  const env = (extra: Record<string, string> = {}) => userEnv(dataDir, { MP_SKIP_BUILD: '1', ...extra });
  const start = async (extra: Record<string, string>) => {
    proc = startProcess('npm', ['start', '--silent'], { env: env(extra) });
    const [, url] = await proc.waitForOutput(/Live API:\s+(https:\/\/\S+)/, 90_000);
    await proc.waitForOutput(/Press Ctrl-C to stop/);
    return url!.replace('localhost', '127.0.0.1');
  };
  const call = (base: string, method: string, path: string, opts: { body?: unknown; headers?: Record<string, string> } = {}) =>
    httpsRequest(`${base}${path}`, { method, ca: readFileSync(join(dataDir, 'tls', 'tls.crt'), 'utf8'), ...opts });
  const login = (base: string, password: string) => call(base, 'POST', '/auth/login', { body: { username: 'chief', password, grant_type: 'password' } });
  const operator = async (args: string[]) => {
    const op = startProcess('npm', ['run', '--silent', 'operator', '--', ...args], { env: env() });
    const code = await new Promise<number | null>((resolve) => op.child.once('exit', resolve));
    return { code, output: op.output() };
  };

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'mp-reset-'));
  });
  afterAll(async () => {
    await proc?.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('says MP_ADMIN_PASSWORD made the administrator, resets a lost password, and later says the setting is ignored', async () => {
    let base = await start({ MP_ADMIN_USERNAME: 'chief', MP_ADMIN_PASSWORD: 'the first password' });
    expect(proc!.output()).toContain('First administrator created: username "chief", with the password set in MP_ADMIN_PASSWORD');
    const before = await login(base, 'the first password');
    expect(before.status).toBe(200);
    const session = before.body.data;

    const reset = await operator(['reset-password', '--username', 'chief']);
    expect(reset.code).toBe(0);
    const answer = JSON.parse(reset.output);
    expect(answer).toMatchObject({ user: { username: 'chief' }, sessions_ended: 1 });
    expect(answer.password).toMatch(/^[A-Za-z0-9_-]{24}$/);

    // The old session is over: its access token and refresh token are refused; so is the old password.
    expect((await call(base, 'GET', '/me', { headers: { authorization: `Bearer ${session.access_token}` } })).body).toMatchObject({ code: 401003 });
    expect((await call(base, 'POST', '/auth/refresh', { body: { refresh_token: session.refresh_token } })).body).toMatchObject({ code: 401003 });
    expect((await login(base, 'the first password')).body).toMatchObject({ code: 401008 });
    expect((await login(base, answer.password)).status).toBe(200);
    expect([0, null]).toContain(await proc!.stop('SIGINT'));

    // A later start with another MP_ADMIN_PASSWORD: the banner says it was not used, and it was not.
    base = await start({ MP_ADMIN_USERNAME: 'chief', MP_ADMIN_PASSWORD: 'a different password' });
    const out = proc!.output();
    expect(out).toContain('Administrator "chief" already existed: MP_ADMIN_PASSWORD was ignored (it only sets the first password)');
    expect(out).toContain('npm run operator -- reset-password --username chief');
    expect(out).not.toMatch(/First administrator created|password as set/);
    expect((await login(base, 'a different password')).body).toMatchObject({ code: 401008 });
    expect((await login(base, answer.password)).status).toBe(200);
    expect([0, null]).toContain(await proc!.stop('SIGINT'));
    proc = null;
  }, 300_000);
});
