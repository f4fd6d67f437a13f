import type { ErrorEntry } from '../types.js';
import { apiKey, json } from './shared.js';

/** 5xx: the service failed (500 internal, 502 gateway, 503 unavailable). */
export const serverErrors: ErrorEntry[] = [
  {
    code: '500001',
    message: 'internal server error',
    category: 'internal',
    suggestion: 'Retry with exponential back-off (1 s, 2 s, 4 s); if it persists, report meta.request_id to support.',
    commonCauses: [
      'An unexpected error in the service',
      'A transient failure of an internal component',
      'An edge case in the request that the service did not handle',
    ],
    solutions: [
      'Retry with exponential back-off: 1 s, 2 s, 4 s, at most 3 attempts',
      'Send an Idempotency-Key on create requests so retries cannot duplicate data',
      'If the error persists, contact support with meta.request_id',
    ],
    example: {
      request: {
        method: 'POST',
        path: '/v3/projects',
        headers: json,
        body: { name: 'Metro Line 3 Tunnel', number: 'PRJ-2024-017' },
      },
      correct: {
        method: 'POST',
        path: '/v3/projects',
        headers: { ...json, 'Idempotency-Key': '7a4e1c90-2b3d-4f58-a6c7-d8e9f0a1b2c3' },
        body: { name: 'Metro Line 3 Tunnel', number: 'PRJ-2024-017' },
        note: 'retried after 1 s, 2 s, 4 s with the same key',
      },
    },
  },
  {
    code: '500002',
    message: 'database error',
    category: 'internal',
    suggestion: 'Retry with exponential back-off (1 s, 2 s, 4 s); if it persists, report meta.request_id to support.',
    commonCauses: ['The database was temporarily unreachable', 'A query timed out under heavy load', 'A transaction failed and was rolled back'],
    solutions: [
      'Retry with exponential back-off: 1 s, 2 s, 4 s, at most 3 attempts',
      'Use an Idempotency-Key on writes so retries are safe',
      'If the error persists, contact support with meta.request_id',
    ],
    example: {
      request: {
        method: 'GET',
        path: '/v3/projects/prj_8f3k2m9q/data?from=2024-01-01T00:00:00Z&to=2024-12-31T23:59:59Z',
        headers: apiKey,
      },
      correct: {
        method: 'GET',
        path: '/v3/projects/prj_8f3k2m9q/data?from=2024-05-01T00:00:00Z&to=2024-05-31T23:59:59Z&limit=100',
        headers: apiKey,
        note: 'retried with back-off over a narrower, paged range',
      },
    },
  },
  {
    code: '500003',
    message: 'external service error',
    category: 'internal',
    suggestion: 'An external service the platform depends on failed; retry with exponential back-off and report meta.request_id if it persists.',
    commonCauses: [
      'A third-party service (e-mail, SMS, storage) failed or timed out',
      'A network problem between the platform and the external provider',
      'The external provider rejected the request',
    ],
    solutions: [
      'Retry with exponential back-off: 1 s, 2 s, 4 s, at most 3 attempts',
      'Check the service status page for incidents',
      'If the error persists, contact support with meta.request_id',
    ],
    example: {
      request: {
        method: 'POST',
        path: '/v3/reports/rpt_6y3u8i1p/approve',
        headers: apiKey,
      },
      correct: {
        method: 'POST',
        path: '/v3/reports/rpt_6y3u8i1p/approve',
        headers: apiKey,
        note: 'retried after 1 s, 2 s, 4 s',
      },
    },
  },
  {
    code: '500004',
    message: 'task queue error',
    category: 'internal',
    suggestion: 'The background job could not be queued; retry with exponential back-off and report meta.request_id if it persists.',
    commonCauses: [
      'The job queue for asynchronous work (reports, batch imports) was unavailable',
      'The job could not be enqueued under heavy load',
      'A transient messaging failure inside the platform',
    ],
    solutions: [
      'Retry with exponential back-off: 1 s, 2 s, 4 s, at most 3 attempts',
      'Use an Idempotency-Key so a retried job is not queued twice',
      'If the error persists, contact support with meta.request_id',
    ],
    example: {
      request: {
        method: 'POST',
        path: '/v3/projects/prj_8f3k2m9q/data/batches',
        headers: json,
        body: { records: '[… 5 000 records …]' },
      },
      correct: {
        method: 'POST',
        path: '/v3/projects/prj_8f3k2m9q/data/batches',
        headers: { ...json, 'Idempotency-Key': 'c2d9e4f1-8a7b-4c6d-9e0f-1a2b3c4d5e6f' },
        body: { records: '[… 5 000 records …]' },
        note: 'retried after 1 s, 2 s, 4 s with the same key',
      },
    },
  },
  {
    code: '500005',
    message: 'file processing error',
    category: 'internal',
    suggestion: 'The file could not be produced or read; retry later and report meta.request_id to support if it persists.',
    commonCauses: ['Rendering a report file failed', 'Reading or writing file storage failed', 'A template contains content the renderer cannot process'],
    solutions: [
      'Retry with exponential back-off: 1 s, 2 s, 4 s, at most 3 attempts',
      'Try the report with another template to rule out a template problem',
      'If the error persists, contact support with meta.request_id',
    ],
    example: {
      request: { method: 'GET', path: '/v3/reports/rpt_6y3u8i1p/file', headers: apiKey },
      correct: {
        method: 'GET',
        path: '/v3/reports/rpt_6y3u8i1p/file',
        headers: apiKey,
        note: 'retried after 1 s, 2 s, 4 s',
      },
    },
  },
  {
    code: '502001',
    message: 'upstream service error',
    category: 'gateway',
    suggestion: 'The gateway got no valid answer from an internal service; retry with exponential back-off and report meta.request_id if it persists.',
    commonCauses: [
      'An internal service behind the gateway returned an invalid response',
      'An internal service crashed or restarted during the request',
      'A network failure between the gateway and the internal service',
    ],
    solutions: [
      'Retry with exponential back-off: 1 s, 2 s, 4 s, at most 3 attempts',
      'Use an Idempotency-Key on create requests so retries are safe',
      'If the error persists, contact support with meta.request_id',
    ],
    example: {
      request: { method: 'GET', path: '/v3/projects/prj_8f3k2m9q/tasks', headers: apiKey },
      correct: {
        method: 'GET',
        path: '/v3/projects/prj_8f3k2m9q/tasks',
        headers: apiKey,
        note: 'retried after 1 s, 2 s, 4 s',
      },
    },
  },
  {
    code: '503001',
    message: 'service under maintenance',
    category: 'unavailable',
    suggestion: 'The service is under maintenance; wait the Retry-After seconds or until the announced window ends, then retry.',
    commonCauses: ['Scheduled maintenance is in progress', 'An emergency maintenance after an incident', 'An upgrade of the platform is being rolled out'],
    solutions: [
      'Wait Retry-After seconds, or until the announced maintenance window ends',
      'Buffer monitoring data on the client and upload it afterwards',
      'Check the service status page for the expected end of maintenance',
    ],
    example: {
      request: {
        method: 'POST',
        path: '/v3/projects/prj_8f3k2m9q/data',
        headers: json,
        body: { records: '[… 120 records …]' },
      },
      correct: {
        method: 'POST',
        path: '/v3/projects/prj_8f3k2m9q/data',
        headers: json,
        body: { records: '[… 120 records …]' },
        note: 'buffered on the client and sent after the maintenance window',
      },
    },
  },
  {
    code: '503002',
    message: 'service overloaded',
    category: 'unavailable',
    suggestion: 'The service is overloaded; retry with exponential back-off (1 s, 2 s, 4 s, at most 3 attempts).',
    commonCauses: [
      'A temporary load peak on the platform',
      'Many clients retry at the same moment without back-off',
      'Heavy background processing, e.g. many reports or batches at once',
    ],
    solutions: [
      'Retry with exponential back-off: 1 s, 2 s, 4 s, at most 3 attempts',
      'Add random jitter to retries so clients do not retry in step',
      'Move non-urgent work to quieter times',
    ],
    example: {
      request: {
        method: 'GET',
        path: '/v3/points/pt_4h7d1x9c/series',
        headers: apiKey,
        note: 'retried immediately in a loop',
      },
      correct: {
        method: 'GET',
        path: '/v3/points/pt_4h7d1x9c/series',
        headers: apiKey,
        note: 'retried after 1 s, 2 s, 4 s with jitter',
      },
    },
  },
  {
    code: '503003',
    message: 'database maintenance',
    category: 'unavailable',
    suggestion: 'The database is under maintenance; wait the Retry-After seconds, then retry.',
    commonCauses: ['Scheduled database maintenance is in progress', 'A database failover or upgrade', 'A backup or restore temporarily blocks writes'],
    solutions: [
      'Wait Retry-After seconds, then retry',
      'Buffer writes on the client and send them after the maintenance',
      'Check the service status page for the expected end of maintenance',
    ],
    example: {
      request: {
        method: 'PATCH',
        path: '/v3/points/pt_4h7d1x9c',
        headers: json,
        body: { thresholds: { warning: 15, alarm: 25 } },
      },
      correct: {
        method: 'PATCH',
        path: '/v3/points/pt_4h7d1x9c',
        headers: json,
        body: { thresholds: { warning: 15, alarm: 25 } },
        note: 'sent again after Retry-After seconds',
      },
    },
  },
];
