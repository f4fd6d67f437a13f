import type { ErrorEntry } from '../types.js';
import { apiKey, json } from './shared.js';

/** 400: the request itself is malformed (category invalid_request). */
export const invalidRequestErrors: ErrorEntry[] = [
  {
    code: '400001',
    message: 'invalid request parameters',
    category: 'invalid_request',
    suggestion: 'Supply every required query and path parameter with the documented type, e.g. limit as an integer from 1 to 100.',
    commonCauses: [
      'A required query or path parameter is missing',
      'A parameter has the wrong type, e.g. limit=abc instead of a number',
      'An unknown or misspelled query parameter name, e.g. ?form= instead of ?from=',
    ],
    solutions: [
      'Check the endpoint in the API reference (GET /v3/openapi.json) for required parameters',
      'Send numbers and booleans in their documented form and URL-encode parameter values',
      'Read data.field in the error response to find the offending parameter',
    ],
    example: {
      request: {
        method: 'GET',
        path: '/v3/projects/prj_8f3k2m9q/data?limit=abc&form=2024-05-01T00:00:00Z',
        headers: apiKey,
      },
      correct: {
        method: 'GET',
        path: '/v3/projects/prj_8f3k2m9q/data?limit=50&from=2024-05-01T00:00:00Z',
        headers: apiKey,
      },
    },
  },
  {
    code: '400002',
    message: 'malformed request body',
    category: 'invalid_request',
    suggestion: 'Send a valid JSON document with the header Content-Type: application/json.',
    commonCauses: [
      'The body is not valid JSON (trailing comma, single quotes, unquoted keys)',
      'The Content-Type header is missing or not application/json',
      'The body was double-encoded as a JSON string instead of a JSON object',
    ],
    solutions: [
      'Serialise the body with a JSON library (e.g. JSON.stringify) instead of building it by hand',
      'Set Content-Type: application/json on every request that has a body',
      'Validate the payload with a JSON linter before sending it',
    ],
    example: {
      request: {
        method: 'POST',
        path: '/v3/projects',
        headers: { 'X-API-Key': '<API_KEY>', 'Content-Type': 'text/plain' },
        body: "{name: 'Metro Line 3 Tunnel', number: 'PRJ-2024-017',}",
      },
      correct: {
        method: 'POST',
        path: '/v3/projects',
        headers: json,
        body: { name: 'Metro Line 3 Tunnel', number: 'PRJ-2024-017' },
      },
    },
  },
  {
    code: '400003',
    message: 'parameter value out of range',
    category: 'invalid_request',
    suggestion: 'Keep every parameter within its documented range, e.g. limit between 1 and 100.',
    commonCauses: [
      'A number is too large or too small, e.g. limit=500 when the maximum is 100',
      'A string is too long, e.g. a search term or name over its maximum length',
      'A negative value where only positive values are allowed',
    ],
    solutions: [
      'Check the minimum and maximum of the parameter in the API reference',
      'Page through large result sets with limit and next_cursor instead of one big request',
      'Clamp or validate user input on the client before sending it',
    ],
    example: {
      request: { method: 'GET', path: '/v3/projects?limit=500', headers: apiKey },
      correct: { method: 'GET', path: '/v3/projects?limit=100', headers: apiKey },
    },
  },
  {
    code: '400004',
    message: 'parameter format invalid',
    category: 'invalid_request',
    suggestion: 'Send dates in ISO 8601 (e.g. 2024-05-01T08:30:00+08:00) and ids with their type prefix (e.g. prj_…, pt_…).',
    commonCauses: [
      'A date is not ISO 8601, e.g. 2024/05/01 08:30 or a Unix timestamp',
      'An id has the wrong format or prefix, e.g. 12345 or tsk_… where pt_… is expected',
      'A time range query uses a local format without a time zone',
    ],
    solutions: [
      'Format timestamps as ISO 8601 with Z or an explicit UTC offset',
      'Use the ids exactly as returned by the API, including their type prefix',
      'Read data.field in the error response to find the badly formatted value',
    ],
    example: {
      request: {
        method: 'GET',
        path: '/v3/points/12345/data?from=2024/05/01&to=2024/05/31',
        headers: apiKey,
      },
      correct: {
        method: 'GET',
        path: '/v3/points/pt_4h7d1x9c/data?from=2024-05-01T00:00:00Z&to=2024-05-31T23:59:59Z',
        headers: apiKey,
      },
    },
  },
  {
    code: '400005',
    message: 'request body too large',
    category: 'invalid_request',
    suggestion: 'Keep each request body under 5 MB; split large uploads into several smaller requests.',
    commonCauses: [
      'Too many monitoring records sent in a single request (body over 5 MB)',
      'Large embedded content such as base64 attachments in the JSON body',
      'Unnecessary fields or pretty-printed JSON inflating the payload',
    ],
    solutions: [
      'Split the records into chunks that each stay under 5 MB',
      'Use POST /v3/projects/{project_id}/data/batches for large asynchronous imports',
      'Send only the fields the endpoint needs and serialise JSON without indentation',
    ],
    example: {
      request: {
        method: 'POST',
        path: '/v3/projects/prj_8f3k2m9q/data',
        headers: json,
        body: { records: '[… 60 000 records, 8.4 MB …]' },
      },
      correct: {
        method: 'POST',
        path: '/v3/projects/prj_8f3k2m9q/data',
        headers: json,
        body: {
          records: [
            {
              point_id: 'pt_4h7d1x9c',
              measured_at: '2024-05-01T08:30:00+08:00',
              values: { x: 3512345.123, y: 512345.678, z: 45.321 },
            },
          ],
        },
        note: 'send the records in several requests, each under 5 MB',
      },
    },
  },
];
