import type { ErrorEntry } from '../types.js';
import { apiKey, json } from './shared.js';

/** 429: too many requests (category rate_limit). */
export const rateLimitErrors: ErrorEntry[] = [
  {
    code: '429001',
    message: 'API requests too frequent',
    category: 'rate_limit',
    suggestion: 'Stay under 100 requests per minute; wait the Retry-After seconds (60 when absent) before retrying.',
    commonCauses: [
      'More than 100 API requests within one minute',
      'Polling for changes in a tight loop instead of using webhooks',
      'Several scripts share one key and add up to more than the limit',
    ],
    solutions: [
      'Wait Retry-After seconds, then retry; watch X-RateLimit-Remaining',
      'Subscribe to webhooks instead of polling',
      'Use list endpoints with limit up to 100 instead of one request per item',
    ],
    example: {
      request: {
        method: 'GET',
        path: '/v3/points/pt_4h7d1x9c',
        headers: apiKey,
        note: 'one request per point, 150 requests within a minute',
      },
      correct: {
        method: 'GET',
        path: '/v3/projects/prj_8f3k2m9q/points?limit=100',
        headers: apiKey,
        note: 'one list request per page, retrying after Retry-After when limited',
      },
    },
  },
  {
    code: '429002',
    message: 'data writes too frequent',
    category: 'rate_limit',
    suggestion: 'Write at most 500 data records per minute; wait the Retry-After seconds before sending more.',
    commonCauses: [
      'More than 500 monitoring records written within one minute',
      'A backlog of readings uploaded at once after a connection outage',
      'Many devices upload through the same tenant at the same moment',
    ],
    solutions: [
      'Wait Retry-After seconds, then continue',
      'Spread writes so no more than 500 records are sent per minute',
      'Queue backlogs on the client and drain them at the allowed rate',
    ],
    example: {
      request: {
        method: 'POST',
        path: '/v3/projects/prj_8f3k2m9q/data',
        headers: json,
        body: { records: '[… 800 records …]' },
        note: 'sent within one minute',
      },
      correct: {
        method: 'POST',
        path: '/v3/projects/prj_8f3k2m9q/data',
        headers: json,
        body: { records: '[… 500 records …]' },
        note: 'the remaining 300 records sent in the next minute',
      },
    },
  },
  {
    code: '429003',
    message: 'report generation too frequent',
    category: 'rate_limit',
    suggestion: 'Request at most 10 reports per hour; wait the Retry-After seconds before generating another.',
    commonCauses: [
      'More than 10 report generation requests within one hour',
      'Regenerating a report repeatedly instead of waiting for report.generated',
      'Several users generate reports for the same tenant at once',
    ],
    solutions: [
      'Wait Retry-After seconds, then request the report again',
      'Subscribe to report.generated and fetch GET /v3/reports/{report_id} instead of regenerating',
      'Combine periods or points into fewer reports',
    ],
    example: {
      request: {
        method: 'POST',
        path: '/v3/projects/prj_8f3k2m9q/reports',
        headers: json,
        body: { template_id: 'tpl_1a2s3d4f', period: { from: '2024-05-01', to: '2024-05-07' } },
        note: 'eleventh report request within the hour',
      },
      correct: {
        method: 'GET',
        path: '/v3/reports/rpt_6y3u8i1p',
        headers: apiKey,
        note: 'fetch the report already generated, or retry after Retry-After',
      },
    },
  },
  {
    code: '429004',
    message: 'too many concurrent requests',
    category: 'rate_limit',
    suggestion: 'Keep at most 50 requests in flight at once; limit the client’s parallelism and retry after Retry-After.',
    commonCauses: [
      'More than 50 requests in flight at the same time',
      'Unbounded parallel requests (e.g. Promise.all over a large list)',
      'Slow responses keep connections open while new requests are started',
    ],
    solutions: [
      'Limit parallelism with a connection pool or concurrency limiter (at most 50)',
      'Retry the refused requests after Retry-After seconds',
      'Use list and batch endpoints instead of many single requests',
    ],
    example: {
      request: {
        method: 'GET',
        path: '/v3/points/{point_id}/series',
        headers: apiKey,
        note: '200 requests started in parallel',
      },
      correct: {
        method: 'GET',
        path: '/v3/points/{point_id}/series',
        headers: apiKey,
        note: 'the same requests with a concurrency limit of 10',
      },
    },
  },
  {
    code: '429005',
    message: 'authentication requests too frequent',
    category: 'rate_limit',
    suggestion: 'Send at most 10 authentication requests per minute; reuse the access token until it expires instead of logging in per request.',
    commonCauses: [
      'More than 10 login, refresh or token requests within one minute',
      'The client logs in for every API call instead of reusing the token',
      'A retry loop repeats failed logins without delay',
    ],
    solutions: [
      'Wait Retry-After seconds before authenticating again',
      'Cache the access token for its 7200-second lifetime and refresh only on expiry',
      'Stop automatic retries of failed logins',
    ],
    example: {
      request: {
        method: 'POST',
        path: '/v3/auth/login',
        headers: { 'Content-Type': 'application/json' },
        body: { username: 'site.surveyor', password: '<PASSWORD>', grant_type: 'password' },
        note: 'called before every API request',
      },
      correct: {
        method: 'GET',
        path: '/v3/projects',
        headers: { Authorization: 'Bearer <CACHED_ACCESS_TOKEN>' },
        note: 'reuse the token from one login; refresh only after 401002',
      },
    },
  },
];
