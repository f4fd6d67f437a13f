import type { ErrorEntry } from './types.js';

/*
 * The error catalogue: every six-digit code of spec §7, plus two documented extras:
 *   409006  idempotency key reused with a different request (design: Idempotency-Key rule)
 *   502001  upstream service error (spec §7.1 names the 502 family without listing codes)
 *
 * `message` is the spec's "Meaning" text and is used as the envelope's `message`.
 * `suggestion` is the default `data.suggestion` when the raising code gives none.
 * `GET /errors/{code}` returns an entry as the error detail record of spec §2.9.
 *
 * Examples are illustrative request shapes: `request` shows the failing call, `correct`
 * the corrected one. Placeholders in angle brackets stand for secrets.
 */

const apiKey = { 'X-API-Key': '<API_KEY>' } as const;
const json = { 'X-API-Key': '<API_KEY>', 'Content-Type': 'application/json' } as const;

export const catalogue: Record<string, ErrorEntry> = {
  // ---------------------------------------------------------------- 400 invalid request
  '400001': {
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
  '400002': {
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
  '400003': {
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
  '400004': {
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
  '400005': {
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

  // ---------------------------------------------------------------- 401 authentication
  '401001': {
    code: '401001',
    message: 'API key invalid',
    category: 'authentication',
    suggestion: 'Send a valid, active API key of this environment in the X-API-Key header, or create a new key in the console.',
    commonCauses: [
      'The key is wrong, truncated or contains extra whitespace',
      'The key was revoked or has expired',
      'A sandbox key is used against the live base URL, or the other way round',
    ],
    solutions: [
      'Copy the key again from your secret store and check it has the prefix plus 32 characters',
      'Create a new key under system settings, API management, if it was revoked or expired',
      'Use the key that belongs to the environment (live or sandbox) you are calling',
    ],
    example: {
      request: {
        method: 'GET',
        path: '/v3/projects',
        headers: { 'X-API-Key': '<REVOKED_API_KEY>' },
      },
      correct: { method: 'GET', path: '/v3/projects', headers: apiKey },
    },
  },
  '401002': {
    code: '401002',
    message: 'JWT expired',
    category: 'authentication',
    suggestion: 'Obtain a new access token with POST /v3/auth/refresh and repeat the request once; access tokens live 7200 seconds.',
    commonCauses: [
      'The access token is older than its 7200-second lifetime',
      'The client caches the token without checking expires_in',
      'The client clock is skewed, so the token is used after it expired',
    ],
    solutions: [
      'Call POST /v3/auth/refresh with the refresh token and repeat the failed request once',
      'Refresh proactively shortly before expires_in elapses',
      'Log in again with POST /v3/auth/login if the refresh token is no longer valid',
    ],
    example: {
      request: {
        method: 'GET',
        path: '/v3/projects',
        headers: { Authorization: 'Bearer <EXPIRED_ACCESS_TOKEN>' },
      },
      correct: {
        method: 'POST',
        path: '/v3/auth/refresh',
        headers: { 'Content-Type': 'application/json' },
        body: { refresh_token: '<REFRESH_TOKEN>' },
        then: {
          method: 'GET',
          path: '/v3/projects',
          headers: { Authorization: 'Bearer <NEW_ACCESS_TOKEN>' },
        },
      },
    },
  },
  '401003': {
    code: '401003',
    message: 'JWT invalid',
    category: 'authentication',
    suggestion: 'Send the access token unchanged as "Authorization: Bearer <token>", exactly as returned by login or refresh.',
    commonCauses: [
      'The token is malformed or truncated (copy-paste error, missing segment)',
      'The token was modified or its signature does not verify',
      'The Bearer prefix is missing, or a token from the other environment is used',
    ],
    solutions: [
      'Use the access_token exactly as returned by POST /v3/auth/login or /v3/auth/refresh',
      'Send it in the Authorization header with the "Bearer " prefix',
      'Log in again at the base URL (live or sandbox) you are calling to obtain a fresh token',
    ],
    example: {
      request: {
        method: 'GET',
        path: '/v3/me',
        headers: { Authorization: '<ACCESS_TOKEN>' },
      },
      correct: {
        method: 'GET',
        path: '/v3/me',
        headers: { Authorization: 'Bearer <ACCESS_TOKEN>' },
      },
    },
  },
  '401004': {
    code: '401004',
    message: 'insufficient permission',
    category: 'authentication',
    suggestion: 'Use an API key or token that carries the permission identifier the endpoint needs (e.g. data:write to write monitoring data).',
    commonCauses: [
      'The API key lacks the needed permission identifier, e.g. only data:read for a data write',
      'The OAuth token was granted a narrower scope than the operation requires',
      'The user role does not include the permission (e.g. system:admin for API key management)',
    ],
    solutions: [
      'Check the permissions of the key with GET /v3/api-keys/{key_id} or the scope of the token',
      'Create a key with the required permission, keeping least privilege',
      'For OAuth, request the needed scope in GET /v3/oauth/authorize and obtain a new token',
    ],
    example: {
      request: {
        method: 'POST',
        path: '/v3/projects/prj_8f3k2m9q/data',
        headers: { 'X-API-Key': '<API_KEY with data:read only>', 'Content-Type': 'application/json' },
        body: {
          records: [
            {
              point_id: 'pt_4h7d1x9c',
              measured_at: '2024-05-01T08:30:00+08:00',
              values: { x: 3512345.123, y: 512345.678, z: 45.321 },
            },
          ],
        },
      },
      correct: {
        method: 'POST',
        path: '/v3/projects/prj_8f3k2m9q/data',
        headers: { 'X-API-Key': '<API_KEY with data:write>', 'Content-Type': 'application/json' },
        body: {
          records: [
            {
              point_id: 'pt_4h7d1x9c',
              measured_at: '2024-05-01T08:30:00+08:00',
              values: { x: 3512345.123, y: 512345.678, z: 45.321 },
            },
          ],
        },
      },
    },
  },
  '401005': {
    code: '401005',
    message: 'OAuth client not authorized',
    category: 'authentication',
    suggestion: 'Send the registered client_id and client_secret of an active OAuth client to POST /v3/oauth/token.',
    commonCauses: [
      'Wrong client_id or client_secret',
      'The OAuth client was deleted or its secret was replaced',
      'Credentials of a client registered in the other environment (live or sandbox)',
    ],
    solutions: [
      'Check the client id with GET /v3/oauth/clients and copy the secret from your secret store',
      'Register a new client with POST /v3/oauth/clients if the old one was deleted',
      'Use the client registered in the environment you are calling',
    ],
    example: {
      request: {
        method: 'POST',
        path: '/v3/oauth/token',
        headers: { 'Content-Type': 'application/json' },
        body: {
          grant_type: 'authorization_code',
          client_id: 'cli_unknown01',
          client_secret: '<WRONG_CLIENT_SECRET>',
          code: '<AUTHORIZATION_CODE>',
          redirect_uri: 'https://partner.example.com/oauth/callback',
        },
      },
      correct: {
        method: 'POST',
        path: '/v3/oauth/token',
        headers: { 'Content-Type': 'application/json' },
        body: {
          grant_type: 'authorization_code',
          client_id: 'cli_5t8w2r4e',
          client_secret: '<CLIENT_SECRET>',
          code: '<AUTHORIZATION_CODE>',
          redirect_uri: 'https://partner.example.com/oauth/callback',
        },
      },
    },
  },
  '401006': {
    code: '401006',
    message: 'account disabled',
    category: 'authentication',
    suggestion: 'Ask a tenant administrator to re-enable the account, or sign in with an active account.',
    commonCauses: [
      'An administrator disabled the account',
      'The account of a departed employee or contractor was deactivated',
      'An integration still uses the credentials of a disabled user',
    ],
    solutions: [
      'Contact your tenant administrator to re-enable the user (PATCH /v3/users/{user_id})',
      'Move integrations to an API key instead of a personal account',
      'Sign in with another active account that has the needed permissions',
    ],
    example: {
      request: {
        method: 'POST',
        path: '/v3/auth/login',
        headers: { 'Content-Type': 'application/json' },
        body: { username: 'former.surveyor', password: '<PASSWORD>', grant_type: 'password' },
      },
      correct: {
        method: 'POST',
        path: '/v3/auth/login',
        headers: { 'Content-Type': 'application/json' },
        body: { username: 'site.surveyor', password: '<PASSWORD>', grant_type: 'password' },
        note: 'an active account, or the same account after an administrator re-enabled it',
      },
    },
  },
  '401007': {
    code: '401007',
    message: 'too many failed logins',
    category: 'authentication',
    suggestion: 'Wait 30 minutes for the security lock to expire, then log in with the correct password.',
    commonCauses: [
      'Several wrong passwords in a row triggered the 30-minute security lock',
      'A script or device keeps retrying with an outdated password',
      'Someone else is trying to guess the password',
    ],
    solutions: [
      'Wait 30 minutes before trying again; further attempts do not unlock the account',
      'Update stored credentials in scripts and devices, and stop automatic retries on 401',
      'If the attempts were not yours, ask an administrator to reset the password',
    ],
    example: {
      request: {
        method: 'POST',
        path: '/v3/auth/login',
        headers: { 'Content-Type': 'application/json' },
        body: { username: 'site.surveyor', password: '<OLD_PASSWORD>', grant_type: 'password' },
        note: 'sixth wrong attempt within a few minutes',
      },
      correct: {
        method: 'POST',
        path: '/v3/auth/login',
        headers: { 'Content-Type': 'application/json' },
        body: { username: 'site.surveyor', password: '<PASSWORD>', grant_type: 'password' },
        note: 'sent after the 30-minute lock has expired',
      },
    },
  },

  // ---------------------------------------------------------------- 403 permission
  // Not in the specification's table: wrong username or password needs a code of its own in the
  // 401 family (spec §5 rule 5); see docs/adr/0004-error-code-extensions.md.
  '401008': {
    code: '401008',
    message: 'username or password incorrect',
    category: 'authentication',
    suggestion: 'Check the username and password and try again; repeated failures lock the account for 30 minutes.',
    commonCauses: ['A mistyped or outdated password', 'A username that does not exist', 'grant_type or field names sent wrongly'],
    solutions: ['Re-enter the credentials carefully', 'Ask an administrator to reset the password', 'Use an API key for scripts instead of a user password'],
    example: {
      request: { method: 'POST', path: '/v3/auth/login', body: { username: 'site.surveyor', password: 'wrong', grant_type: 'password' } },
      correct: { method: 'POST', path: '/v3/auth/login', body: { username: 'site.surveyor', password: '<PASSWORD>', grant_type: 'password' } },
    },
  },
  '401020': {
    code: '401020',
    message: 'acknowledge link expired',
    category: 'authentication',
    suggestion: 'Acknowledge the alarm in the console, or with the link of a newer notification mail.',
    commonCauses: ['The mail is older than the links last (MP_NOTIFY_ACK_LINK_HOURS, 72 h by default)'],
    solutions: [
      'Open the alarm in the console (the mail links to its point) and acknowledge it there',
      'POST /v3/alarms/{alarm_id}/acknowledge with an API key',
    ],
    example: {
      request: { method: 'POST', path: '/v3/alarm-ack/<LINK TOKEN OF A MAIL FROM LAST WEEK>' },
      correct: { method: 'POST', path: '/v3/alarms/alm_4n2k8q1m7p3x9c5v6b0z/acknowledge', body: { comment: 'crew on site' } },
    },
  },
  '403001': {
    code: '403001',
    message: 'no access to project',
    category: 'permission',
    suggestion: 'Ask a project administrator to add you as a member of the project, or use a project you belong to.',
    commonCauses: [
      'The caller is not a member of the project',
      'The membership was removed after the project team changed',
      'The project id belongs to another team of the same tenant',
    ],
    solutions: [
      'List the projects you can access with GET /v3/projects',
      'Ask a project administrator to add you with POST /v3/projects/{project_id}/members',
      'Check that the project id in the request is the intended one',
    ],
    example: {
      request: {
        method: 'GET',
        path: '/v3/projects/prj_7c1v5n3z/data',
        headers: { Authorization: 'Bearer <ACCESS_TOKEN of a non-member>' },
      },
      correct: {
        method: 'POST',
        path: '/v3/projects/prj_7c1v5n3z/members',
        headers: { Authorization: 'Bearer <ACCESS_TOKEN of the project administrator>' },
        body: { user_id: 'usr_3j9k6p2a' },
        then: 'repeat GET /v3/projects/prj_7c1v5n3z/data as the new member',
      },
    },
  },
  '403002': {
    code: '403002',
    message: 'operation not permitted',
    category: 'permission',
    suggestion: 'Ask a project administrator for a project role with write access before changing this project.',
    commonCauses: [
      'The caller is a project member with a read-only role',
      'Write permission for the project was withdrawn',
      'A viewer account is used by an integration that writes data',
    ],
    solutions: [
      'Check your role in GET /v3/projects/{project_id}/members',
      'Ask a project administrator to grant a role with write access',
      'Perform the write with an account or key that has write access to the project',
    ],
    example: {
      request: {
        method: 'PATCH',
        path: '/v3/projects/prj_8f3k2m9q',
        headers: { Authorization: 'Bearer <ACCESS_TOKEN of a read-only member>' },
        body: { description: 'Settlement monitoring, phase 2' },
      },
      correct: {
        method: 'PATCH',
        path: '/v3/projects/prj_8f3k2m9q',
        headers: { Authorization: 'Bearer <ACCESS_TOKEN of a member with write access>' },
        body: { description: 'Settlement monitoring, phase 2' },
      },
    },
  },
  '403003': {
    code: '403003',
    message: 'data isolation restriction',
    category: 'permission',
    suggestion: "Access only resources of your own tenant; use the ids returned by your tenant's API calls.",
    commonCauses: [
      'The resource belongs to another tenant',
      'An id was copied from another organisation’s export or shared link',
      'An integration serving several tenants uses the wrong tenant’s credentials',
    ],
    solutions: [
      'List your own resources (e.g. GET /v3/projects) and use ids from that list',
      'Ask the owning tenant to share the data through an export instead of ids',
      'Check that the credentials and the ids belong to the same tenant',
    ],
    example: {
      request: {
        method: 'GET',
        path: '/v3/projects/prj_otherten01',
        headers: apiKey,
      },
      correct: {
        method: 'GET',
        path: '/v3/projects/prj_8f3k2m9q',
        headers: apiKey,
        note: 'a project of the caller’s own tenant',
      },
    },
  },
  '403004': {
    code: '403004',
    message: 'feature not licensed',
    category: 'permission',
    suggestion: 'Upgrade the tenant plan to include this feature, or use an endpoint your plan covers.',
    commonCauses: [
      'The subscription plan does not include the feature (e.g. report generation or batch imports)',
      'The plan was downgraded or a trial ended',
      'The feature is enabled in the sandbox but not in the live environment',
    ],
    solutions: [
      'Check the features of your plan with your tenant administrator',
      'Contact sales or support to upgrade the plan',
      'Use an alternative within your plan, e.g. synchronous POST /v3/projects/{project_id}/data instead of batches',
    ],
    example: {
      request: {
        method: 'POST',
        path: '/v3/projects/prj_8f3k2m9q/data/batches',
        headers: json,
        body: { records: '[… 20 000 records …]' },
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
        note: 'or the same batch request after the plan was upgraded',
      },
    },
  },

  // ---------------------------------------------------------------- 404 not found
  '404001': {
    code: '404001',
    message: 'project does not exist',
    category: 'not_found',
    suggestion: 'Check the project id; list your projects with GET /v3/projects and use an id from that list.',
    commonCauses: ['The project id is misspelled or truncated', 'The project was deleted', 'The id comes from the other environment (sandbox or live)'],
    solutions: [
      'List existing projects with GET /v3/projects?q=<name>',
      'Use the id returned by POST /v3/projects when the project was created',
      'Make sure the base URL (live or sandbox) matches where the project was created',
    ],
    example: {
      request: { method: 'GET', path: '/v3/projects/prj_8f3k2m9x', headers: apiKey },
      correct: { method: 'GET', path: '/v3/projects/prj_8f3k2m9q', headers: apiKey },
    },
  },
  '404002': {
    code: '404002',
    message: 'task does not exist',
    category: 'not_found',
    suggestion: "Check the task id; list the project's tasks with GET /v3/projects/{project_id}/tasks.",
    commonCauses: [
      'The task id is misspelled or truncated',
      'The task was deleted or belongs to a deleted project',
      'The id comes from the other environment (sandbox or live)',
    ],
    solutions: [
      'List the tasks of the project with GET /v3/projects/{project_id}/tasks',
      'Use the id returned when the task was created',
      'Make sure you are calling the environment where the task was created',
    ],
    example: {
      request: { method: 'GET', path: '/v3/tasks/tsk_2n6b8v0l', headers: apiKey },
      correct: { method: 'GET', path: '/v3/tasks/tsk_2n6b8v01', headers: apiKey },
    },
  },
  '404003': {
    code: '404003',
    message: 'monitoring point does not exist',
    category: 'not_found',
    suggestion: "Check the point id; list the project's points with GET /v3/projects/{project_id}/points.",
    commonCauses: [
      'The point id is misspelled, or the point number (e.g. JC-01) was used instead of its id',
      'The monitoring point was deleted',
      'The id comes from the other environment (sandbox or live)',
    ],
    solutions: [
      'List the points of the project with GET /v3/projects/{project_id}/points',
      'Map point numbers to point ids once and use the ids in requests',
      'Create the point with POST /v3/projects/{project_id}/points if it is missing',
    ],
    example: {
      request: { method: 'GET', path: '/v3/points/pt_JC-01/data', headers: apiKey },
      correct: { method: 'GET', path: '/v3/points/pt_4h7d1x9c/data', headers: apiKey },
    },
  },
  '404004': {
    code: '404004',
    message: 'data record does not exist',
    category: 'not_found',
    suggestion: 'Check the data id; find the record with GET /v3/points/{point_id}/data and a time range.',
    commonCauses: ['The data id is misspelled or truncated', 'The record was deleted', 'The record was part of a batch that has not finished processing'],
    solutions: [
      'Query the records of the point with GET /v3/points/{point_id}/data?from=…&to=…',
      'Use the data_id returned in the write response or the data.created event',
      'For batches, wait until GET /v3/data/batches/{batch_id} reports completion',
    ],
    example: {
      request: { method: 'GET', path: '/v3/data/dat_9q2w4e6r0', headers: apiKey },
      correct: { method: 'GET', path: '/v3/data/dat_9q2w4e6r8', headers: apiKey },
    },
  },
  '404005': {
    code: '404005',
    message: 'report does not exist',
    category: 'not_found',
    suggestion: 'Check the report id; list reports with GET /v3/reports and use an id from that list.',
    commonCauses: ['The report id is misspelled or truncated', 'The report was deleted', 'The id comes from the other environment (sandbox or live)'],
    solutions: [
      'List reports with GET /v3/reports',
      'Use the id returned by POST /v3/projects/{project_id}/reports or the report.generated event',
      'Make sure you are calling the environment where the report was generated',
    ],
    example: {
      request: { method: 'GET', path: '/v3/reports/rpt_6y3u8i1o/file', headers: apiKey },
      correct: { method: 'GET', path: '/v3/reports/rpt_6y3u8i1p/file', headers: apiKey },
    },
  },
  '404006': {
    code: '404006',
    message: 'template does not exist',
    category: 'not_found',
    suggestion: 'Check the template id; list available templates with GET /v3/templates.',
    commonCauses: [
      'The template id is misspelled or truncated',
      'The template was deleted',
      'The template was created in the other environment (sandbox or live)',
    ],
    solutions: [
      'List templates with GET /v3/templates',
      'Create the template with POST /v3/templates if it is missing',
      'Use a template id from the environment you are calling',
    ],
    example: {
      request: { method: 'GET', path: '/v3/templates/tpl_weekly00', headers: apiKey },
      correct: { method: 'GET', path: '/v3/templates/tpl_1a2s3d4f', headers: apiKey },
    },
  },
  '404007': {
    code: '404007',
    message: 'user does not exist',
    category: 'not_found',
    suggestion: 'Check the user id; list users with GET /v3/users and use an id from that list.',
    commonCauses: ['The user id is misspelled, or a username was used instead of the id', 'The user was deleted', 'The user belongs to another tenant'],
    solutions: [
      'List users with GET /v3/users?q=<name>',
      'Use the usr_ id, not the username or display name',
      'Create the user with POST /v3/users if it is missing',
    ],
    example: {
      request: { method: 'GET', path: '/v3/users/usr_site.surveyor', headers: apiKey },
      correct: { method: 'GET', path: '/v3/users/usr_3j9k6p2a', headers: apiKey },
    },
  },
  '404008': {
    code: '404008',
    message: 'device does not exist',
    category: 'not_found',
    suggestion: 'Check the device id; list registered devices with GET /v3/devices.',
    commonCauses: [
      'The device id is misspelled, or the serial number was used instead of the id',
      'The device was deleted or decommissioned',
      'The device was registered in the other environment (sandbox or live)',
    ],
    solutions: [
      'List devices with GET /v3/devices',
      'Register the device with POST /v3/devices if it is missing',
      'Use the dev_ id, not the instrument serial number',
    ],
    example: {
      request: { method: 'GET', path: '/v3/devices/dev_TS60-883421', headers: apiKey },
      correct: { method: 'GET', path: '/v3/devices/dev_0z8x7c6v', headers: apiKey },
    },
  },

  // ---------------------------------------------------------------- 409 conflict
  // Not in the specification's table: resources the specification names no 404 code for
  // (see docs/adr/0004-error-code-extensions.md).
  '404009': {
    code: '404009',
    message: 'webhook does not exist',
    category: 'not_found',
    suggestion: 'Check the webhook id (whk_…); list the existing ones to find the right id.',
    commonCauses: ['The webhook was deleted', 'The id belongs to the other environment (live or sandbox) or another tenant', 'A typo in the id'],
    solutions: ['List the webhooks you can see and use an id from that list', 'Call the base URL of the environment the webhook was created in'],
    example: {
      request: { method: 'GET', path: '/v3/webhooks/whk_0000000000000000000x' },
      correct: { method: 'GET', path: '/v3/webhooks/whk_4n2k8q1m7p3x9c5v6b0z' },
    },
  },
  '404010': {
    code: '404010',
    message: 'API key does not exist',
    category: 'not_found',
    suggestion: 'Check the API key id (key_…); list the existing ones to find the right id.',
    commonCauses: ['The API key was deleted', 'The id belongs to the other environment (live or sandbox) or another tenant', 'A typo in the id'],
    solutions: ['List the API keys you can see and use an id from that list', 'Call the base URL of the environment the API key was created in'],
    example: {
      request: { method: 'GET', path: '/v3/api-keys/key_0000000000000000000x' },
      correct: { method: 'GET', path: '/v3/api-keys/key_4n2k8q1m7p3x9c5v6b0z' },
    },
  },
  '404011': {
    code: '404011',
    message: 'delivery does not exist',
    category: 'not_found',
    suggestion: 'Check the delivery id (del_…); list the existing ones to find the right id.',
    commonCauses: ['The delivery was deleted', 'The id belongs to the other environment (live or sandbox) or another tenant', 'A typo in the id'],
    solutions: ['List the deliverys you can see and use an id from that list', 'Call the base URL of the environment the delivery was created in'],
    example: {
      request: { method: 'GET', path: '/v3/webhooks/whk_4n2k8q1m7p3x9c5v6b0z/deliveries/del_0000000000000000000x/resend' },
      correct: { method: 'GET', path: '/v3/webhooks/whk_4n2k8q1m7p3x9c5v6b0z/deliveries/del_4n2k8q1m7p3x9c5v6b0z/resend' },
    },
  },
  '404012': {
    code: '404012',
    message: 'OAuth client does not exist',
    category: 'not_found',
    suggestion: 'Check the OAuth client id (cli_…); list the existing ones to find the right id.',
    commonCauses: ['The OAuth client was deleted', 'The id belongs to the other environment (live or sandbox) or another tenant', 'A typo in the id'],
    solutions: ['List the OAuth clients you can see and use an id from that list', 'Call the base URL of the environment the OAuth client was created in'],
    example: {
      request: { method: 'GET', path: '/v3/oauth/clients/cli_0000000000000000000x' },
      correct: { method: 'GET', path: '/v3/oauth/clients/cli_4n2k8q1m7p3x9c5v6b0z' },
    },
  },
  '404013': {
    code: '404013',
    message: 'batch does not exist',
    category: 'not_found',
    suggestion: 'Check the data batch id (bat_…); list the existing ones to find the right id.',
    commonCauses: ['The data batch was deleted', 'The id belongs to the other environment (live or sandbox) or another tenant', 'A typo in the id'],
    solutions: ['List the data batchs you can see and use an id from that list', 'Call the base URL of the environment the data batch was created in'],
    example: {
      request: { method: 'GET', path: '/v3/data/batches/bat_0000000000000000000x' },
      correct: { method: 'GET', path: '/v3/data/batches/bat_4n2k8q1m7p3x9c5v6b0z' },
    },
  },
  '404014': {
    code: '404014',
    message: 'alarm does not exist',
    category: 'not_found',
    suggestion: 'Check the alarm id (alm_…); list the alarms of the project to find the right id.',
    commonCauses: ['The id belongs to the other environment (live or sandbox) or another tenant', 'A typo in the id'],
    solutions: [
      'List the alarms with GET /v3/projects/{project_id}/alarms and use an id from that list',
      'Call the base URL of the environment the alarm was raised in',
    ],
    example: {
      request: { method: 'GET', path: '/v3/alarms/alm_0000000000000000000x' },
      correct: { method: 'GET', path: '/v3/alarms/alm_4n2k8q1m7p3x9c5v6b0z' },
    },
  },
  '404015': {
    code: '404015',
    message: 'endpoint does not exist',
    category: 'not_found',
    suggestion: 'Check the path against the API reference (GET /v3/openapi.json, or /docs in a browser); paths start with /v3.',
    commonCauses: ['The /v3 prefix is missing or doubled', 'A typo in a path segment', 'A path from another API version'],
    solutions: ['Copy the path from the reference at /docs', 'Call {base_url} plus the path exactly as listed, e.g. /v3/projects'],
    example: {
      request: { method: 'GET', path: '/v3/project' },
      correct: { method: 'GET', path: '/v3/projects' },
    },
  },
  '404018': {
    code: '404018',
    message: 'report schedule does not exist',
    category: 'not_found',
    suggestion: 'Check the schedule id (rsc_…); list the schedules of the project to find the right id.',
    commonCauses: ['The schedule was deleted', 'The id belongs to the other environment (live or sandbox) or another tenant', 'A typo in the id'],
    solutions: [
      'List the schedules with GET /v3/projects/{project_id}/report-schedules and use an id from that list',
      'Call the base URL of the environment the schedule was created in',
    ],
    example: {
      request: { method: 'GET', path: '/v3/report-schedules/rsc_0000000000000000000x' },
      correct: { method: 'GET', path: '/v3/report-schedules/rsc_4n2k8q1m7p3x9c5v6b0z' },
    },
  },
  '404019': {
    code: '404019',
    message: 'tenant logo does not exist',
    category: 'not_found',
    suggestion: 'Upload the logo with PUT /v3/tenant/logo first.',
    commonCauses: ['No logo was uploaded yet', 'The logo was deleted', 'The logo was uploaded in the other environment (live or sandbox)'],
    solutions: ['Upload a PNG or JPEG with PUT /v3/tenant/logo', 'Call the base URL of the environment the logo was uploaded in'],
    example: {
      request: { method: 'GET', path: '/v3/tenant/logo' },
      correct: { method: 'PUT', path: '/v3/tenant/logo', body: { image: 'iVBORw0KGgoAAAANSUhEUgAA…' } },
    },
  },
  '404020': {
    code: '404020',
    message: 'notification rule does not exist',
    category: 'not_found',
    suggestion: "Check the rule id (ntr_…); list the project's rules to find the right id.",
    commonCauses: ['The rule was deleted', 'The id belongs to the other environment (live or sandbox) or another tenant', 'A typo in the id'],
    solutions: ['List the rules with GET /v3/projects/{project_id}/notification-rules and use an id from that list'],
    example: {
      request: { method: 'DELETE', path: '/v3/notification-rules/ntr_0000000000000000000x' },
      correct: { method: 'DELETE', path: '/v3/notification-rules/ntr_4n2k8q1m7p3x9c5v6b0z' },
    },
  },
  '404021': {
    code: '404021',
    message: 'acknowledge link not valid',
    category: 'not_found',
    suggestion: 'Open the link exactly as the mail gives it, or acknowledge the alarm in the console.',
    commonCauses: [
      'The link was cut or changed when copied (its signature no longer matches)',
      'The link belongs to a rule that was deleted',
      'A link of the other environment',
    ],
    solutions: ['Click the link in the mail instead of copying it', 'Acknowledge the alarm in the console or with POST /v3/alarms/{alarm_id}/acknowledge'],
    example: {
      request: { method: 'GET', path: '/v3/alarm-ack/<A CHANGED TOKEN>' },
      correct: { method: 'GET', path: '/v3/alarm-ack/<THE TOKEN AS THE MAIL GIVES IT>' },
    },
  },
  '409001': {
    code: '409001',
    message: 'duplicate project number',
    category: 'conflict',
    suggestion: 'Choose a project number that is not used yet, or work with the existing project that has this number.',
    commonCauses: [
      'A project with the same number already exists',
      'A create request was repeated without an Idempotency-Key after a timeout',
      'Numbers are assigned manually and collided',
    ],
    solutions: [
      'Search for the existing project with GET /v3/projects?q=<number>',
      'Use a new, unique number for the new project',
      'Send an Idempotency-Key header on create requests so retries are safe',
    ],
    example: {
      request: {
        method: 'POST',
        path: '/v3/projects',
        headers: json,
        body: { name: 'Riverside Deep Excavation', number: 'PRJ-2024-017' },
      },
      correct: {
        method: 'POST',
        path: '/v3/projects',
        headers: json,
        body: { name: 'Riverside Deep Excavation', number: 'PRJ-2024-018' },
      },
    },
  },
  '409002': {
    code: '409002',
    message: 'duplicate point number',
    category: 'conflict',
    suggestion: 'Use a point number that is unique within the project, or update the existing point instead.',
    commonCauses: [
      'A point with the same number already exists in the project',
      'A point import was run twice',
      'Point numbers were reused after re-surveying the layout',
    ],
    solutions: [
      'List the points with GET /v3/projects/{project_id}/points to find the existing one',
      'Change the number of the new point',
      'Update the existing point with PATCH /v3/points/{point_id} instead of creating a new one',
    ],
    example: {
      request: {
        method: 'POST',
        path: '/v3/projects/prj_8f3k2m9q/points',
        headers: json,
        body: {
          number: 'JC-01',
          name: 'Crown settlement JC-01',
          sensor_type: 'total_station',
          reference: { x: 3512345.1, y: 512345.6, z: 45.3 },
          thresholds: { warning: 20, alarm: 30 },
        },
      },
      correct: {
        method: 'POST',
        path: '/v3/projects/prj_8f3k2m9q/points',
        headers: json,
        body: {
          number: 'JC-02',
          name: 'Crown settlement JC-02',
          sensor_type: 'total_station',
          reference: { x: 3512350.4, y: 512348.2, z: 45.1 },
          thresholds: { warning: 20, alarm: 30 },
        },
      },
    },
  },
  '409003': {
    code: '409003',
    message: 'duplicate data',
    category: 'conflict',
    suggestion: 'A record for this point and measured_at already exists; update it with PATCH /v3/data/{data_id} or delete it first.',
    commonCauses: [
      'Data for the same point and time point was already written',
      'An upload was retried after a timeout although the first attempt succeeded',
      'Two devices report the same point with identical timestamps',
    ],
    solutions: [
      'Look up the existing record with GET /v3/points/{point_id}/data?from=…&to=…',
      'Correct it with PATCH /v3/data/{data_id}, or DELETE it and write again',
      'Send an Idempotency-Key header so a retried write returns the first response',
    ],
    example: {
      request: {
        method: 'POST',
        path: '/v3/projects/prj_8f3k2m9q/data',
        headers: json,
        body: {
          records: [
            {
              point_id: 'pt_4h7d1x9c',
              measured_at: '2024-05-01T08:30:00+08:00',
              values: { x: 3512345.125, y: 512345.679, z: 45.318 },
            },
          ],
        },
      },
      correct: {
        method: 'PATCH',
        path: '/v3/data/dat_9q2w4e6r8',
        headers: json,
        body: { values: { x: 3512345.125, y: 512345.679, z: 45.318 } },
      },
    },
  },
  '409004': {
    code: '409004',
    message: 'concurrent modification conflict',
    category: 'conflict',
    suggestion: 'The resource was changed by someone else; reload it, reapply your change and send it with the current version.',
    commonCauses: [
      'Another user changed the resource after you read it (stale version or If-Match)',
      'Two clients edit the same resource at the same time',
      'The client caches resources and sends an old version number',
    ],
    solutions: [
      'Reload the resource with GET to obtain its current version',
      'Merge or reapply your change on top of the current state',
      'Send the update again with the new version (or If-Match header)',
    ],
    example: {
      request: {
        method: 'PATCH',
        path: '/v3/projects/prj_8f3k2m9q',
        headers: json,
        body: { description: 'Phase 2 started', version: 3 },
      },
      correct: {
        method: 'PATCH',
        path: '/v3/projects/prj_8f3k2m9q',
        headers: json,
        body: { description: 'Phase 2 started', version: 4 },
        note: 'version taken from a fresh GET /v3/projects/prj_8f3k2m9q',
      },
    },
  },
  '409005': {
    code: '409005',
    message: 'task status conflict',
    category: 'conflict',
    suggestion: "Read the task's current status and request only a transition that is allowed from it.",
    commonCauses: [
      'The current status forbids the operation, e.g. restarting a cancelled task',
      'The task was already completed by another user',
      'The client skipped a step, e.g. completing a task that was never started',
    ],
    solutions: [
      'Read the current status with GET /v3/tasks/{task_id}',
      'Check the allowed transitions in the API reference',
      'Request a transition that is valid from the current status, or create a new task',
    ],
    example: {
      request: {
        method: 'PUT',
        path: '/v3/tasks/tsk_2n6b8v01/status',
        headers: json,
        body: { status: 'in_progress', remark: 'restart' },
        note: 'the task is cancelled',
      },
      correct: {
        method: 'PUT',
        path: '/v3/tasks/tsk_2n6b8v01/status',
        headers: json,
        body: { status: 'completed', remark: 'Survey round 12 finished' },
        note: 'the task is in_progress',
      },
    },
  },
  '409006': {
    code: '409006',
    message: 'idempotency key reused with a different request',
    category: 'conflict',
    suggestion: 'Use a new Idempotency-Key for each distinct request; reuse a key only to retry the identical request within 24 hours.',
    commonCauses: [
      'The same Idempotency-Key was sent with a different body within 24 hours',
      'The client uses a fixed or counter-based key that repeats across requests',
      'The body changed between retries (e.g. a regenerated timestamp in the payload)',
    ],
    solutions: [
      'Generate a fresh key (e.g. a UUID) for every new create request',
      'When retrying, resend exactly the same body with the same key',
      'Keep values such as timestamps fixed in the payload across retries',
    ],
    example: {
      request: {
        method: 'POST',
        path: '/v3/projects',
        headers: { ...json, 'Idempotency-Key': '3f1c9a52-7d44-4e8b-9a0e-5b2d6c8e1f07' },
        body: { name: 'North Slope Monitoring', number: 'PRJ-2024-019' },
        note: 'the key was already used for PRJ-2024-018',
      },
      correct: {
        method: 'POST',
        path: '/v3/projects',
        headers: { ...json, 'Idempotency-Key': 'b8e2d7f4-1a6c-4c39-8f51-0e9a3d2c7b64' },
        body: { name: 'North Slope Monitoring', number: 'PRJ-2024-019' },
      },
    },
  },

  // ---------------------------------------------------------------- 422 business rules
  // Not in the specification's table (see docs/adr/0004-error-code-extensions.md).
  '409007': {
    code: '409007',
    message: 'duplicate device serial number',
    category: 'conflict',
    suggestion: 'Use the existing device with this serial number, or correct the serial number.',
    commonCauses: ['The device was registered before', 'Two devices were given the same serial number by mistake'],
    solutions: ['List devices with GET /devices?q=<serial> and use the existing one', 'Check the serial number on the device label'],
    example: {
      request: { method: 'POST', path: '/v3/devices', body: { serial_number: 'TS-60-001234', model: 'TS60', type: 'total_station' } },
      correct: { method: 'GET', path: '/v3/devices?q=TS-60-001234' },
    },
  },
  '409008': {
    code: '409008',
    message: 'project status conflict',
    category: 'conflict',
    suggestion: 'Read the project status and choose a move allowed from it (see the transition table in the API reference).',
    commonCauses: [
      'The project is already in the requested status',
      'The move skips a step, e.g. not_started to completed',
      'Another user changed the status first',
    ],
    solutions: ['GET the project and check its status', 'Follow the transition table: not_started → in_progress → paused/completed → archived'],
    example: {
      request: { method: 'PUT', path: '/v3/projects/prj_4n2k8q1m7p3x9c5v6b0z/status', body: { status: 'completed' }, note: 'project is not_started' },
      correct: { method: 'PUT', path: '/v3/projects/prj_4n2k8q1m7p3x9c5v6b0z/status', body: { status: 'in_progress' } },
    },
  },
  '409009': {
    code: '409009',
    message: 'duplicate username',
    category: 'conflict',
    suggestion: 'Choose another username; sign-in is by username alone, so usernames are unique across the platform.',
    commonCauses: ['The user was created before', 'Another organisation already uses the same username'],
    solutions: ['List users with GET /users?q=<name> to find the existing account', 'Add your organisation as a suffix, e.g. j.smith.acme'],
    example: {
      request: { method: 'POST', path: '/v3/users', body: { username: 'admin', name: 'Site lead', password: '<PASSWORD>' } },
      correct: { method: 'POST', path: '/v3/users', body: { username: 'site.lead.acme', name: 'Site lead', password: '<PASSWORD>' } },
    },
  },
  '409010': {
    code: '409010',
    message: 'alarm status conflict',
    category: 'conflict',
    suggestion: 'Read the alarm and choose a change allowed from its status: acknowledge an open alarm; clear an open or acknowledged one.',
    commonCauses: [
      'The alarm is already acknowledged',
      'The alarm is already cleared (by a person, or by the readings returning within the limits)',
      'Another user changed it first',
    ],
    solutions: ['GET /v3/alarms/{alarm_id} and check its status and history', 'A cleared alarm stays cleared: the next breaking reading opens a new one'],
    example: {
      request: { method: 'POST', path: '/v3/alarms/alm_4n2k8q1m7p3x9c5v6b0z/acknowledge', body: { comment: 'crew on site' }, note: 'alarm is cleared' },
      correct: { method: 'GET', path: '/v3/alarms/alm_4n2k8q1m7p3x9c5v6b0z' },
    },
  },
  '409011': {
    code: '409011',
    message: 'report status conflict',
    category: 'conflict',
    suggestion: 'Approve or reject a report only while its status is generated; read the report to see its status.',
    commonCauses: ['The report is still generating, or its generation failed', 'The report was already approved or rejected (by you or another reviewer)'],
    solutions: [
      'GET /v3/reports/{report_id} and check status (and approved_by/rejected_by)',
      'Wait for report.generated (or poll until status is generated) before approving',
      'A rejected report stays rejected: generate a new one for the period',
    ],
    example: {
      request: { method: 'POST', path: '/v3/reports/rpt_4n2k8q1m7p3x9c5v6b0z/approve', body: { comment: 'checked' }, note: 'report is still generating' },
      correct: { method: 'GET', path: '/v3/reports/rpt_4n2k8q1m7p3x9c5v6b0z' },
    },
  },
  '409020': {
    code: '409020',
    message: 'acknowledge link already used',
    category: 'conflict',
    suggestion: 'Each acknowledge link works once; read the alarm to see who acknowledged it.',
    commonCauses: ['The link was opened and confirmed before (by you, or by someone the mail was forwarded to)'],
    solutions: ['GET /v3/alarms/{alarm_id} shows who acknowledged the alarm and when'],
    example: {
      request: { method: 'POST', path: '/v3/alarm-ack/<A TOKEN USED BEFORE>' },
      correct: { method: 'GET', path: '/v3/alarms/alm_4n2k8q1m7p3x9c5v6b0z' },
    },
  },
  '422101': {
    code: '422101',
    message: 'required field missing',
    category: 'business_rule',
    suggestion: 'Add the required body field named in data.field, e.g. name when creating a project.',
    commonCauses: [
      'A required body field is omitted, e.g. name on POST /v3/projects',
      'The field name is misspelled, e.g. pointId instead of point_id',
      'The field is sent as null or an empty string',
    ],
    solutions: [
      'Read data.field in the error response to find the missing field',
      'Compare the body with the required fields in the API reference',
      'Use the exact snake_case field names of the API',
    ],
    example: {
      request: {
        method: 'POST',
        path: '/v3/projects',
        headers: json,
        body: { number: 'PRJ-2024-017' },
      },
      correct: {
        method: 'POST',
        path: '/v3/projects',
        headers: json,
        body: { name: 'Metro Line 3 Tunnel', number: 'PRJ-2024-017' },
      },
    },
  },
  '422102': {
    code: '422102',
    message: 'field type wrong',
    category: 'business_rule',
    suggestion: 'Send each field with its documented JSON type, e.g. coordinates as numbers, not strings.',
    commonCauses: [
      'Numbers sent as strings, e.g. "x": "3512345.123"',
      'An object or array expected but a scalar sent, e.g. records as a single object',
      'Booleans sent as "true"/"false" strings or 0/1',
    ],
    solutions: [
      'Read data.field to find the field with the wrong type',
      'Convert values to their JSON types before serialising',
      'Wrap single records in an array: "records": [ {...} ]',
    ],
    example: {
      request: {
        method: 'POST',
        path: '/v3/projects/prj_8f3k2m9q/data',
        headers: json,
        body: {
          records: [
            {
              point_id: 'pt_4h7d1x9c',
              measured_at: '2024-05-01T08:30:00+08:00',
              values: { x: '3512345.123', y: '512345.678', z: '45.321' },
            },
          ],
        },
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
      },
    },
  },
  '422103': {
    code: '422103',
    message: 'field value invalid',
    category: 'business_rule',
    suggestion: 'Use one of the documented values for the field named in data.field, e.g. a valid status such as in_progress.',
    commonCauses: [
      'An enumerated field has a value outside its allowed set, e.g. status "finished"',
      'A field has a bad format, e.g. a webhook url that is not HTTPS',
      'A value the platform does not know, e.g. an unsupported sensor_type',
    ],
    solutions: [
      'Check the allowed values of the field in the API reference',
      'Read data.field and data.detail in the error response',
      'Validate enumerations and formats on the client before sending',
    ],
    example: {
      request: {
        method: 'PUT',
        path: '/v3/projects/prj_8f3k2m9q/status',
        headers: json,
        body: { status: 'finished', remark: 'All rounds done' },
      },
      correct: {
        method: 'PUT',
        path: '/v3/projects/prj_8f3k2m9q/status',
        headers: json,
        body: { status: 'completed', remark: 'All rounds done' },
      },
    },
  },
  '422104': {
    code: '422104',
    message: 'referenced data missing',
    category: 'business_rule',
    suggestion: 'Reference only existing resources: create the referenced item first or correct its id.',
    commonCauses: [
      'A referenced id does not exist, e.g. device_id of an unregistered device',
      'A record references a point_id that is not part of the project',
      'The referenced resource was deleted in the meantime',
    ],
    solutions: [
      'Read data.field to find the dangling reference',
      'Look the id up with the matching list endpoint (e.g. GET /v3/devices)',
      'Create the referenced resource first, then repeat the request',
    ],
    example: {
      request: {
        method: 'POST',
        path: '/v3/projects/prj_8f3k2m9q/points',
        headers: json,
        body: {
          number: 'JC-03',
          name: 'Crown settlement JC-03',
          sensor_type: 'total_station',
          reference: { x: 3512355.2, y: 512351.0, z: 44.9 },
          thresholds: { warning: 20, alarm: 30 },
          device_id: 'dev_notregd1',
        },
      },
      correct: {
        method: 'POST',
        path: '/v3/projects/prj_8f3k2m9q/points',
        headers: json,
        body: {
          number: 'JC-03',
          name: 'Crown settlement JC-03',
          sensor_type: 'total_station',
          reference: { x: 3512355.2, y: 512351.0, z: 44.9 },
          thresholds: { warning: 20, alarm: 30 },
          device_id: 'dev_0z8x7c6v',
        },
      },
    },
  },
  '422105': {
    code: '422105',
    message: 'number out of business range',
    category: 'business_rule',
    suggestion: 'Send a value within the business range of the field, e.g. positive warning and alarm thresholds in millimetres.',
    commonCauses: [
      'A threshold or limit is zero or negative',
      'A value uses the wrong unit, e.g. metres where millimetres are expected',
      'A value exceeds what the sensor or rule allows',
    ],
    solutions: [
      'Check the unit and range of the field in the API reference',
      'Convert units before sending (coordinates in metres, displacements and thresholds in millimetres)',
      'Read data.field and data.detail for the allowed range',
    ],
    example: {
      request: {
        method: 'PATCH',
        path: '/v3/points/pt_4h7d1x9c',
        headers: json,
        body: { thresholds: { warning: -0.02, alarm: -0.03 } },
      },
      correct: {
        method: 'PATCH',
        path: '/v3/points/pt_4h7d1x9c',
        headers: json,
        body: { thresholds: { warning: 20, alarm: 30 } },
      },
    },
  },
  '422201': {
    code: '422201',
    message: 'coordinates out of plausible range',
    category: 'business_rule',
    suggestion: "Send coordinates in metres in the project's coordinate system, within the plausible range configured for the project.",
    commonCauses: [
      'Coordinates lie outside the national territory or the configured plausible range',
      'Coordinates sent in millimetres instead of metres',
      'x and y swapped, or the zone/false-easting offset omitted',
    ],
    solutions: [
      'Check the coordinate system and unit exported by the instrument',
      'Compare with the reference coordinates of the point (GET /v3/points/{point_id})',
      'Swap or convert values as needed and write the record again',
    ],
    example: {
      request: {
        method: 'POST',
        path: '/v3/projects/prj_8f3k2m9q/data',
        headers: json,
        body: {
          records: [
            {
              point_id: 'pt_4h7d1x9c',
              measured_at: '2024-05-01T08:30:00+08:00',
              values: { x: 3512345123, y: 512345678, z: 45321 },
            },
          ],
        },
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
      },
    },
  },
  '422202': {
    code: '422202',
    message: 'time range wrong',
    category: 'business_rule',
    suggestion: "Use a measured_at on or after the project's start date, with the correct time zone offset.",
    commonCauses: [
      'measured_at is earlier than the project start date',
      'The instrument clock or the year is wrong',
      'The time zone offset is missing or wrong, shifting the time before the start',
    ],
    solutions: [
      "Check the project's start_date with GET /v3/projects/{project_id}",
      'Correct the instrument clock and the measured_at values',
      'If the start date is wrong, correct it with PATCH /v3/projects/{project_id}',
    ],
    example: {
      request: {
        method: 'POST',
        path: '/v3/projects/prj_8f3k2m9q/data',
        headers: json,
        body: {
          records: [
            {
              point_id: 'pt_4h7d1x9c',
              measured_at: '2023-05-01T08:30:00+08:00',
              values: { x: 3512345.123, y: 512345.678, z: 45.321 },
            },
          ],
        },
        note: 'the project starts on 2024-03-01',
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
      },
    },
  },
  '422203': {
    code: '422203',
    message: 'abrupt value change',
    category: 'business_rule',
    suggestion: 'Verify the measurement: re-measure the point, or raise its abrupt_change_limit if the change is genuine.',
    commonCauses: [
      "The value differs from the previous measurement by more than the point's abrupt-change limit",
      'Instrument, sighting or prism error',
      'The reading belongs to another point (wrong point_id)',
    ],
    solutions: [
      'Check the previous values with GET /v3/points/{point_id}/data',
      'Re-measure the point and send the verified value',
      'If the movement is real, raise abrupt_change_limit with PATCH /v3/points/{point_id} and write again',
    ],
    example: {
      request: {
        method: 'POST',
        path: '/v3/projects/prj_8f3k2m9q/data',
        headers: json,
        body: {
          records: [
            {
              point_id: 'pt_4h7d1x9c',
              measured_at: '2024-05-02T08:30:00+08:00',
              values: { dx: 0.8, dy: -1.1, dz: -85.0 },
            },
          ],
        },
        note: 'previous dz was -1.2 mm, abrupt-change limit 10 mm',
      },
      correct: {
        method: 'POST',
        path: '/v3/projects/prj_8f3k2m9q/data',
        headers: json,
        body: {
          records: [
            {
              point_id: 'pt_4h7d1x9c',
              measured_at: '2024-05-02T08:30:00+08:00',
              values: { dx: 0.8, dy: -1.1, dz: -1.5 },
            },
          ],
        },
        note: 're-measured value',
      },
    },
  },
  '422204': {
    code: '422204',
    message: 'inconsistent fields',
    category: 'business_rule',
    suggestion:
      'Make related fields agree, e.g. dx must equal x minus the reference x (in mm); or send only coordinates and let the service derive displacements.',
    commonCauses: [
      'Displacements do not match the coordinates and the point reference (dx ≠ x − reference x)',
      'Warning threshold greater than the alarm threshold',
      'A date range whose end is before its start',
    ],
    solutions: [
      'Send coordinates only and let the service derive dx, dy, dz',
      'Recompute displacements from the reference coordinates (GET /v3/points/{point_id})',
      'Check logical relations between fields before sending',
    ],
    example: {
      request: {
        method: 'POST',
        path: '/v3/projects/prj_8f3k2m9q/data',
        headers: json,
        body: {
          records: [
            {
              point_id: 'pt_4h7d1x9c',
              measured_at: '2024-05-01T08:30:00+08:00',
              values: { x: 3512345.112, y: 512345.6, z: 45.3, dx: 5.0, dy: 0, dz: 0 },
            },
          ],
        },
        note: 'reference x is 3512345.100, so dx should be 12.0 mm',
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
              values: { x: 3512345.112, y: 512345.6, z: 45.3, dx: 12.0, dy: 0, dz: 0 },
            },
          ],
        },
      },
    },
  },
  '422205': {
    code: '422205',
    message: 'insufficient precision',
    category: 'business_rule',
    suggestion: 'Send values with at least the precision the point requires, e.g. coordinates to the millimetre (three decimals in metres).',
    commonCauses: [
      'Values were rounded, e.g. coordinates to centimetres instead of millimetres',
      'The export format of the instrument truncates decimals',
      'Values passed through a spreadsheet that reduced the number of decimals',
    ],
    solutions: [
      "Check the point's required precision with GET /v3/points/{point_id}",
      'Export raw values from the instrument with full precision',
      'Avoid rounding in intermediate tools and resend the record',
    ],
    example: {
      request: {
        method: 'POST',
        path: '/v3/projects/prj_8f3k2m9q/data',
        headers: json,
        body: {
          records: [
            {
              point_id: 'pt_4h7d1x9c',
              measured_at: '2024-05-01T08:30:00+08:00',
              values: { x: 3512345.1, y: 512345.7, z: 45.3 },
            },
          ],
        },
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
      },
    },
  },
  '422301': {
    code: '422301',
    message: 'project archived',
    category: 'business_rule',
    suggestion: 'Archived projects are read-only; read their data, and make changes only in a project that is not archived.',
    commonCauses: [
      'The project was archived and cannot be modified',
      'An integration still writes to a project that was closed',
      'The wrong project id is used (an old project instead of the current one)',
    ],
    solutions: [
      'Check the project status with GET /v3/projects/{project_id}',
      'Point integrations at the current, active project',
      'Read historical data from the archived project with GET requests only',
    ],
    example: {
      request: {
        method: 'PATCH',
        path: '/v3/projects/prj_old2021a',
        headers: json,
        body: { description: 'Add phase 3 points' },
        note: 'the project is archived',
      },
      correct: {
        method: 'PATCH',
        path: '/v3/projects/prj_8f3k2m9q',
        headers: json,
        body: { description: 'Add phase 3 points' },
        note: 'the current project, status in_progress',
      },
    },
  },
  '422302': {
    code: '422302',
    message: 'project paused',
    category: 'business_rule',
    suggestion: 'Resume the project with PUT /v3/projects/{project_id}/status {"status":"in_progress"} before creating tasks.',
    commonCauses: [
      'The project is paused, so new tasks cannot be created',
      'Site work was suspended and the project status not yet updated',
      'Tasks are created by a schedule that ignores the project status',
    ],
    solutions: [
      'Check the project status with GET /v3/projects/{project_id}',
      'Resume the project with PUT /v3/projects/{project_id}/status and status in_progress',
      'Create the task again once the project is in progress',
    ],
    example: {
      request: {
        method: 'POST',
        path: '/v3/projects/prj_8f3k2m9q/tasks',
        headers: json,
        body: { name: 'Survey round 13', due_at: '2024-05-10T18:00:00+08:00' },
        note: 'the project is paused',
      },
      correct: {
        method: 'PUT',
        path: '/v3/projects/prj_8f3k2m9q/status',
        headers: json,
        body: { status: 'in_progress', remark: 'Site work resumed' },
        then: 'repeat POST /v3/projects/prj_8f3k2m9q/tasks',
      },
    },
  },
  '422303': {
    code: '422303',
    message: 'project not started',
    category: 'business_rule',
    suggestion: 'Start the project with PUT /v3/projects/{project_id}/status {"status":"in_progress"} before writing monitoring data.',
    commonCauses: [
      'The project is still not_started, so monitoring data cannot be written',
      'Baseline readings are uploaded before the project was started',
      'Data is written to a newly created project by mistake',
    ],
    solutions: [
      'Check the project status with GET /v3/projects/{project_id}',
      'Start the project with PUT /v3/projects/{project_id}/status and status in_progress',
      'Write the data again once the project is in progress',
    ],
    example: {
      request: {
        method: 'POST',
        path: '/v3/projects/prj_new24b7k/data',
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
        note: 'the project status is not_started',
      },
      correct: {
        method: 'PUT',
        path: '/v3/projects/prj_new24b7k/status',
        headers: json,
        body: { status: 'in_progress', remark: 'Monitoring started' },
        then: 'repeat POST /v3/projects/prj_new24b7k/data',
      },
    },
  },
  '422304': {
    code: '422304',
    message: 'task overdue',
    category: 'business_rule',
    suggestion: "Extend the task's deadline with PATCH /v3/tasks/{task_id} (due_at) before updating its status.",
    commonCauses: [
      'The task is past its due_at, so its status cannot be updated',
      'Field work finished late and the deadline was not extended',
      'The due_at was set with the wrong date or time zone',
    ],
    solutions: [
      'Check due_at and overdue with GET /v3/tasks/{task_id}',
      'Move the deadline with PATCH /v3/tasks/{task_id} and a later due_at',
      'Repeat the status update once the task is no longer overdue',
    ],
    example: {
      request: {
        method: 'PUT',
        path: '/v3/tasks/tsk_2n6b8v01/status',
        headers: json,
        body: { status: 'completed', remark: 'Survey round 12 finished' },
        note: 'due_at was 2024-04-30T18:00:00+08:00',
      },
      correct: {
        method: 'PATCH',
        path: '/v3/tasks/tsk_2n6b8v01',
        headers: json,
        body: { due_at: '2024-05-03T18:00:00+08:00' },
        then: 'repeat PUT /v3/tasks/tsk_2n6b8v01/status',
      },
    },
  },

  // ---------------------------------------------------------------- 429 rate limit
  '429001': {
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
  '429002': {
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
  '429003': {
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
  '429004': {
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
  '429005': {
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

  // ---------------------------------------------------------------- 500 internal
  '500001': {
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
  '500002': {
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
  '500003': {
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
  '500004': {
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
  '500005': {
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

  // ---------------------------------------------------------------- 502 gateway
  '502001': {
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

  // ---------------------------------------------------------------- 503 unavailable
  '503001': {
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
  '503002': {
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
  '503003': {
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
};

export const errorCodes: string[] = Object.keys(catalogue);
