import type { ErrorEntry } from '../types.js';
import { apiKey } from './shared.js';

/** 401: the caller is not authenticated (category authentication). */
export const authenticationErrors: ErrorEntry[] = [
  {
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
  {
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
  {
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
  {
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
  {
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
  {
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
  {
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
  // An extra code (ADR 0004): a wrong username or password needs a code of its own in the 401
  // family (docs/rules.md#sign-in).
  {
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
  {
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
];
