import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, startProcess, type StartedProcess } from '../support/process.js';

// The README's quickstart cannot rot. The local receiver (examples/webhook-receiver.mjs)
// and `npm start` are started as the README says, then examples/quickstart.sh (curl and jq) and
// examples/sdk-end-to-end.mjs (@mp/sdk) run against them, as a user would.
describe('the README quickstart against npm start', () => {
  let dataDir: string;
  let receiver: StartedProcess | undefined;
  let platform: StartedProcess | undefined;
  let env: Record<string, string | undefined>;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'mp-quickstart-'));
    const clean: Record<string, string | undefined> = { ...process.env };
    for (const k of Object.keys(clean)) if (k.startsWith('MP_') || k.startsWith('npm_')) delete clean[k];
    const receiverDir = join(dataDir, 'receiver');
    receiver = startProcess('node', ['examples/webhook-receiver.mjs'], { env: { ...clean, RECEIVER_DIR: receiverDir, RECEIVER_PORT: '0' } });
    const [, receiverUrl] = await receiver.waitForOutput(/listening at (https:\/\/\S+)/);
    platform = startProcess('npm', ['start', '--silent'], {
      env: {
        ...clean,
        MP_DATA_DIR: dataDir,
        MP_HTTPS_PORT: '0',
        MP_SANDBOX_HTTPS_PORT: '0',
        // the default ops port may be another platform's on a shared machine
        MP_OPS_PORT: '0',
        MP_BIND_HOST: '127.0.0.1',
        MP_LOG_LEVEL: 'warn',
        MP_SKIP_BUILD: '1',
        // Five runs of the walkthrough sign in and refresh more often than a person would within
        // a minute (10 per client address by default); the limits are not what is tested here.
        MP_LIMIT_AUTH_PER_MINUTE: '100',
        MP_LIMIT_API_PER_MINUTE: '1000',
        // The two settings the README's quickstart starts with.
        MP_WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        NODE_EXTRA_CA_CERTS: join(receiverDir, 'tls.crt'),
      },
    });
    const [, api] = await platform.waitForOutput(/Live API:\s+(https:\/\/\S+)/, 90_000);
    await platform.waitForOutput(/Press Ctrl-C to stop/);
    const [, password] = platform.output().match(/username "admin", password "([^"]+)"/)!;
    env = {
      ...clean,
      API: api!.replace('localhost', '127.0.0.1'),
      CA: join(dataDir, 'tls', 'tls.crt'),
      ADMIN_PASSWORD: password,
      RECEIVER_URL: receiverUrl,
      RECEIVER_DIR: receiverDir,
    };
  }, 120_000);

  afterAll(async () => {
    await platform?.stop('SIGKILL');
    await receiver?.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  const run = async (command: string, args: string[]) => {
    const proc = startProcess(command, args, { env });
    const code = await new Promise<number | null>((resolve) => proc.child.once('exit', resolve));
    return { code, out: proc.output() };
  };

  it('examples/quickstart.sh runs every step of the walkthrough', async () => {
    const { code, out } = await run('bash', ['examples/quickstart.sh']);
    expect({ code, out }).toMatchObject({ code: 0 });
    expect(out).toMatch(/^api key: mp_live_/m);
    expect(out).toMatch(/^project: prj_\w+ {2}point: pt_\w+$/m);
    expect(out).toMatch(/^status: in_progress$/m);
    expect(out).toMatch(/^written: 3 records, 0 abnormal$/m);
    expect(out).toMatch(/^series: 3 readings in \d+ buckets$/m);
    expect(out).toMatch(/^test event: webhook.test delivered \(HTTP 204\)$/m);
    expect(out).toMatch(/^delivery: webhook.test delivered$/m);
    expect(out).toMatch(/^refreshed: expires_in 7200$/m);
    // The receiver saw the signed test event.
    await receiver!.waitForOutput(/"received":"webhook.test","event_id":"evt_\w+","signature":"sha256=[0-9a-f]{64}"/);
  });

  // A second run on the same platform makes its own project (no 409002 on the number)
  // and reuses the webhook the first run made (a tenant holds at most 50).
  it('examples/quickstart.sh runs again on the same platform', async () => {
    const first = await run('bash', ['examples/quickstart.sh']);
    const second = await run('bash', ['examples/quickstart.sh']);
    expect({ code: second.code, out: second.out }).toMatchObject({ code: 0 });
    const projectOf = (out: string) => out.match(/^project: (prj_\w+)/m)?.[1];
    expect(projectOf(second.out)).toMatch(/^prj_/);
    expect(projectOf(second.out)).not.toBe(projectOf(first.out));
    const [, webhookId] = first.out.match(/^webhook: (whk_\w+)/m) ?? second.out.match(/^webhook: (whk_\w+)/m)!;
    expect(second.out).toContain(`webhook: ${webhookId}  (made by an earlier run; its secret was shown then)`);
    expect(second.out).toMatch(/^written: 3 records, 0 abnormal$/m);
    expect(second.out).toMatch(/^test event: webhook.test delivered \(HTTP 204\)$/m);
  });

  // A refused call stops the script and shows the error envelope, not just curl's status.
  it('examples/quickstart.sh prints the error envelope of a refused call', async () => {
    const proc = startProcess('bash', ['examples/quickstart.sh'], { env: { ...env, ADMIN_PASSWORD: 'not-the-password' } });
    const code = await new Promise<number | null>((resolve) => proc.child.once('exit', resolve));
    expect(code).not.toBe(0);
    const out = proc.output();
    expect(out).toContain(`quickstart: the request to ${env.API}/auth/login failed:`);
    const envelope = JSON.parse(out.split('failed:\n')[1]!.split('\n')[0]!);
    expect(envelope).toMatchObject({ code: 401008 });
    expect(out).not.toMatch(/^api key:/m);
  });

  it('the README shows steps that run as written', async () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const block = readme.split('Step by step')[1]!.match(/```sh\n([\s\S]*?)```/)![1]!;
    // Only what a reader fills in differs: the printed password, and this run's ports and folders.
    const script = block
      .replaceAll('<printed password>', env.ADMIN_PASSWORD!)
      .replaceAll('https://localhost:8443/v3', env.API!)
      .replaceAll('.data/tls/tls.crt', env.CA!)
      .replaceAll('https://127.0.0.1:9443/hook', env.RECEIVER_URL!)
      .replace('"number":"ML4-2026"', '"number":"ML4-README"');
    const { code, out } = await run('bash', ['-euo', 'pipefail', '-c', script]);
    expect({ code, out }).toMatchObject({ code: 0 });
    expect(out).toContain('"event_type":"webhook.test","webhook_id"');
    expect(out).toContain('"status":"delivered"');
    expect(out).toContain('"expires_in":7200');
  });

  it('examples/sdk-end-to-end.mjs does the same with the SDK and verifies the deliveries', async () => {
    const { code, out } = await run('node', ['examples/sdk-end-to-end.mjs']);
    expect({ code, out }).toMatchObject({ code: 0 });
    expect(out).toMatch(/^written: 3 records$/m);
    expect(out).toMatch(/^series: 3 readings$/m);
    expect(out).toMatch(/^test event: delivered$/m);
    expect(out).toMatch(/^verified deliveries: .*webhook\.test/m);
    expect(out).toMatch(/^typed error: 404001 on project_id \(request req_\w+\)$/m);
    expect(out).not.toMatch(/refused a delivery/);
  });
});
