// The baseline of bench/gateway: a bare Koa application on Node's HTTPS server with the same
// certificate, in a process of its own. GET /bare answers a one-item list in the platform's
// envelope; POST /bare reads and parses a JSON body and answers one stored record's worth of JSON.
// No authentication, limits, validation or service call: what is left is TLS, HTTP and Koa.
// Prints {"port":…} when listening; stops on SIGTERM.
import https from 'node:https';
import Koa from 'koa';
import Router from '@koa/router';

const tls = JSON.parse(process.env.BENCH_TLS);
const meta = () => ({ request_id: 'req_bare', timestamp: new Date().toISOString() });
const item = { id: 'prj_bare', name: 'Benchmark tunnel', number: 'BENCH-1', status: 'in_progress' };

const router = new Router();
router.get('/bare', (ctx) => {
  ctx.body = { code: 200, data: { items: [item], next_cursor: null, has_more: false }, meta: meta() };
});
router.post('/bare', async (ctx) => {
  // The whole body, as the gateway reads one (a few hundred bytes here).
  const chunks = [];
  for await (const chunk of ctx.req) chunks.push(chunk);
  const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  const record = body.records[0];
  ctx.body = {
    code: 200,
    data: {
      records: [{ data_id: 'dat_bare', point_id: record.point_id, measured_at: record.measured_at, status: 'normal', quality_flag: 'valid' }],
      total_count: 1,
      abnormal_count: 0,
    },
    meta: meta(),
  };
});
const app = new Koa();
app.use(router.routes());

const server = https.createServer({ cert: tls.cert, key: tls.key }, app.callback());
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(JSON.stringify({ port: server.address().port }) + '\n'));
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
