// What the OpenAPI machinery costs (ADR 0030): building the document from the route table (once
// per gateway process, on the first GET /v3/openapi.json) and the contract check every test answer
// goes through (packages/testing/src/contract.ts). Baselines in the same run: serialising the
// finished document, and JSON.parse of the answer the check validates.
// `node bench/openapi/run.mjs` (after a build); BENCH_SMOKE=1 times a few runs of each only.
import { currentOpenApiText } from '@mp/gateway/openapi';
import { assertContract } from '@mp/testing';
import { smokeOr } from '../support/smoke.mjs';

const BUILDS = smokeOr(5, 1);
const CHECKS = smokeOr(2000, 20);

const time = (n, fn) => {
  const start = performance.now();
  for (let i = 0; i < n; i++) fn();
  return (performance.now() - start) / n;
};

const t0 = performance.now();
const text = currentOpenApiText();
const firstBuild = performance.now() - t0;
const doc = JSON.parse(text);
const build = time(BUILDS, currentOpenApiText);
const stringify = time(BUILDS, () => JSON.stringify(doc, null, 2));

const project = {
  id: 'prj_0123456789abcdefghij',
  number: 'ML4',
  name: 'Metro',
  description: null,
  status: 'in_progress',
  start_date: null,
  end_date: null,
  bounds: null,
  time_zone: 'Europe/Berlin',
  open_alarms: { count: 1, unacknowledged: 1, by_level: { warning: 1, alarm: 0, action: 0 }, highest_level: 'warning' },
  created_by: 'usr_0123456789abcdefghij',
  created_at: '2026-11-24T00:00:00.000Z',
  updated_at: '2026-11-24T00:00:00.000Z',
  version: 3,
};
const bodyText = JSON.stringify({
  code: 200,
  data: { items: Array(20).fill(project), next_cursor: null, has_more: false },
  meta: { request_id: 'req_0123456789abcdefghij', timestamp: '2026-11-24T00:00:00.000Z' },
});
const headers = { 'x-request-id': 'req_0123456789abcdefghij', 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '99', 'x-ratelimit-reset': '1' };
const answer = { status: 200, headers, body: JSON.parse(bodyText) };
assertContract('GET', 'https://127.0.0.1/v3/projects', answer); // compiles the validator once
const check = time(CHECKS, () => assertContract('GET', 'https://127.0.0.1/v3/projects', answer));
const parse = time(CHECKS, () => JSON.parse(bodyText));

console.log(
  `document: ${Object.values(doc.paths).reduce((n, o) => n + Object.keys(o).length, 0)} operations, ${(text.length / 1024).toFixed(0)} KB formatted, ${(JSON.stringify(doc).length / 1024).toFixed(0)} KB served`,
);
console.log(
  `build (first, with zod conversion warm-up): ${firstBuild.toFixed(1)} ms; build: ${build.toFixed(1)} ms; baseline JSON.stringify of it: ${stringify.toFixed(1)} ms`,
);
console.log(`contract check of a 20-project page: ${(check * 1000).toFixed(1)} µs; baseline JSON.parse of it: ${(parse * 1000).toFixed(1)} µs`);
