// `npm start`: the whole platform in one process. Embedded adapters (PGlite, in-process events,
// in-memory limits) unless MP_DATABASE_URL / MP_NATS_URL / MP_REDIS_URL point at real ones.
// Tracing (when OTEL_EXPORTER_OTLP_ENDPOINT is set) starts before the platform's modules are
// imported, so that its instrumentations see them load (ADR 0035).
import { relative } from 'node:path';
import { startTracing } from '@mp/telemetry';

const started = performance.now();
// Everything this process creates is its owner's only: the data folder holds records, password
// hashes and sealed secrets, whatever the umask of the shell that started it (docs/operations.md).
process.umask(0o077);
let platform;
let describeFirstAdmin;
let tracing = null;
try {
  tracing = await startTracing('monitoring-platform');
  const launcher = await import('@mp/launcher');
  describeFirstAdmin = launcher.describeFirstAdmin;
  platform = await launcher.startPlatform();
} catch (err) {
  // One line that says what to change; the stack is for MP_LOG_LEVEL=debug.
  process.stderr.write(`Monitoring Platform did not start: ${err.message}\n`);
  if (process.env.MP_LOG_LEVEL === 'debug') console.error(err);
  process.exit(1);
}
const { gateway, admin, mode, opsPort } = platform;
const seconds = ((performance.now() - started) / 1000).toFixed(1);
const rel = gateway.certificatePath ? relative(process.cwd(), gateway.certificatePath) : null;
const cert = gateway.certificatePath ? (rel && !rel.startsWith('..') ? rel : gateway.certificatePath) : null;

const lines = [
  '',
  `Monitoring Platform is running (${mode} mode, started in ${seconds} s).`,
  `  Live API:     ${gateway.baseUrl}`,
  `  Sandbox API:  ${gateway.sandboxBaseUrl}`,
];
if (opsPort !== null) lines.push(`  Operations:   http://${process.env.MP_OPS_HOST || '127.0.0.1'}:${opsPort}/metrics (and /livez, /readyz; MP_OPS_PORT)`);
if (tracing) lines.push(`  Tracing:      on, exporting to ${process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_ENDPOINT}`);
if (cert) lines.push(`  Certificate:  ${cert} (self-signed unless MP_TLS_CERT_FILE is set; curl --cacert ${cert} …)`);
lines.push('', 'Sign in:');
for (const line of describeFirstAdmin(admin)) lines.push(`  ${line}`);
lines.push(
  `  curl --cacert ${cert ?? '<ca.pem>'} -H 'Content-Type: application/json' \\`,
  `       -d '{"username":"${admin.username}","password":"…","grant_type":"password"}' ${gateway.baseUrl}/auth/login`,
  '',
  'Press Ctrl-C to stop.',
  '',
);
process.stdout.write(lines.join('\n'));

// SIGHUP: the gateway reads its certificate files again (a renewed MP_TLS_CERT_FILE, or a new
// self-signed pair in MP_DATA_DIR/tls) and serves them to new connections, no restart needed.
process.on('SIGHUP', () => {
  gateway.reloadCertificate().then(
    (r) =>
      process.stdout.write(r.reloaded ? `TLS certificate reloaded from ${cert} (valid until ${r.validUntil}).\n` : `TLS certificate unchanged (${cert}).\n`),
    (err) => process.stderr.write(`TLS certificate not reloaded, the one in use is kept: ${err.message}\n`),
  );
});

// A drain: the ports close at once (new connections are refused), the requests in flight are
// answered, then the services stop. A second Ctrl-C stops at once.
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, async () => {
    if (stopping) {
      process.stdout.write('Stopped without waiting for requests in flight.\n');
      process.exit(1);
    }
    stopping = true;
    const drained = platform.drain();
    process.stdout.write('\nStopping: new connections are refused; requests in flight finish (Ctrl-C again to stop at once)…\n');
    await drained;
    await platform.stop();
    await tracing?.shutdown();
    process.stdout.write('Stopped.\n');
    process.exit(0);
  });
}
