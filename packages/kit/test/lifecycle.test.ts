import { spawn } from 'node:child_process';
import http from 'node:http';

// ADR 0045: a standalone process's lifecycle, in a real child process: the ops server answers from
// the start, /readyz is 503 until the process serves and again from SIGTERM on, the stop steps run
// in order, and a drain that does not finish within MP_SHUTDOWN_TIMEOUT_MS ends with exit code 1.
describe('startLifecycle', () => {
  /** A process that starts its lifecycle, serves when told on stdin, and stops with `step`. */
  function child(step: 'finishes' | 'hangs', env: Record<string, string> = {}) {
    const script = `
      import { createLogger, lifecycleSettings, parseConfig, startLifecycle } from '@mp/kit';
      import { z } from 'zod';
      const settings = parseConfig(z.object(lifecycleSettings), process.env);
      const logger = createLogger('probe');
      const life = await startLifecycle('probe', settings, logger);
      process.stdin.once('data', () => {
        // The steps log through the lifecycle's own logger: its writes are asynchronous, so lines
        // written beside it with console.log could come out ahead of earlier log lines.
        life.serving([
          async () => logger.info('step 1'),
          ${step === 'hangs' ? '() => new Promise(() => {})' : "async () => logger.info('step 2')"},
        ]);
        console.log('serving');
      });`;
    const proc = spawn(process.execPath, ['--input-type=module', '-e', script], {
      cwd: new URL('..', import.meta.url).pathname,
      env: { PATH: process.env.PATH, MP_OPS_HOST: '127.0.0.1', MP_OPS_PORT: '0', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const until = (pattern: RegExp) =>
      new Promise<RegExpMatchArray>((resolve, reject) => {
        const check = () => {
          const m = out.match(pattern);
          if (m) {
            proc.stdout.off('data', check);
            resolve(m);
          }
        };
        proc.stdout.on('data', check);
        proc.once('exit', () => reject(new Error(`exited before ${pattern}:\n${out}`)));
        check();
      });
    const exited = new Promise<number | null>((resolve) => proc.once('exit', resolve));
    return { proc, until, exited, output: () => out };
  }

  const get = (port: number, path: string) =>
    new Promise<number>((resolve, reject) =>
      http.get({ host: '127.0.0.1', port, path, agent: false }, (res) => (res.resume(), resolve(res.statusCode ?? 0))).on('error', reject),
    );

  it('is live at once, ready only while serving, and drains in order on SIGTERM', async () => {
    const c = child('finishes');
    const [, port] = await c.until(/"ops_port":(\d+)/);
    expect([await get(Number(port), '/livez'), await get(Number(port), '/readyz'), await get(Number(port), '/metrics')]).toEqual([200, 503, 200]);
    c.proc.stdin.write('go\n');
    await c.until(/serving/);
    expect(await get(Number(port), '/readyz')).toBe(200);
    c.proc.kill('SIGTERM');
    expect(await c.exited).toBe(0);
    // In the order they happened, by each line's own time: lines can reach stdout out of order
    // (seen under load in CI), so their order on stdout proves nothing either way.
    const lines = c
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { time: number; msg: string });
    const timeOf = (m: RegExp) => lines.find((l) => m.test(l.msg))?.time ?? NaN;
    const times = [/^draining: not ready/, /^step 1$/, /^step 2$/, /^drained; exiting$/].map(timeOf);
    expect(times.every(Number.isFinite)).toBe(true);
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('exits 1 when the drain outlasts MP_SHUTDOWN_TIMEOUT_MS', async () => {
    const c = child('hangs', { MP_SHUTDOWN_TIMEOUT_MS: '1000' });
    const [, port] = await c.until(/"ops_port":(\d+)/);
    c.proc.stdin.write('go\n');
    await c.until(/serving/);
    c.proc.kill('SIGTERM');
    await c.until(/step 1/);
    expect(await get(Number(port), '/readyz')).toBe(503);
    expect(await c.exited).toBe(1);
    expect(c.output()).toContain('drain did not finish in time; exiting');
  });
});
