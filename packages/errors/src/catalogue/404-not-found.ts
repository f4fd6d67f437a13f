import type { ErrorEntry } from '../types.js';
import { apiKey } from './shared.js';

/** 404: the named resource does not exist or is not visible (category not_found). */
export const notFoundErrors: ErrorEntry[] = [
  {
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
  {
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
  {
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
  {
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
  {
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
  {
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
  {
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
  {
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
  // Not in the specification's table: resources the specification names no 404 code for
  // (see docs/adr/0004-error-code-extensions.md).
  {
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
  {
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
  {
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
  {
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
  {
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
  {
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
  {
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
  {
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
  {
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
  {
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
  {
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
  {
    code: '404040',
    message: 'site plan does not exist',
    category: 'not_found',
    suggestion: 'Upload the drawing with PUT /v3/projects/{project_id}/site-plan first.',
    commonCauses: ['No site plan was uploaded for this project yet', 'The site plan was deleted', 'The project id names another project'],
    solutions: [
      'Upload a PNG or JPEG of the site with PUT /v3/projects/{project_id}/site-plan',
      'Without a plan, the console places the points by their reference coordinates',
    ],
    example: {
      request: { method: 'GET', path: '/v3/projects/prj_4n2k8q1m7p3x9c5v6b0z/site-plan' },
      correct: { method: 'PUT', path: '/v3/projects/prj_4n2k8q1m7p3x9c5v6b0z/site-plan', body: { image: 'iVBORw0KGgoAAAANSUhEUgAA…' } },
    },
  },
  {
    code: '404030',
    message: 'import profile does not exist',
    category: 'not_found',
    suggestion: "Check the profile id (ipf_…); list the project's import profiles to find the right id.",
    commonCauses: ['The profile was deleted', 'The id belongs to the other environment (live or sandbox) or another tenant', 'A typo in the id'],
    solutions: ['List the profiles with GET /v3/projects/{project_id}/import-profiles and use an id from that list'],
    example: {
      request: { method: 'GET', path: '/v3/import-profiles/ipf_0000000000000000000x', headers: apiKey },
      correct: { method: 'GET', path: '/v3/import-profiles/ipf_4n2k8q1m7p3x9c5v6b0z', headers: apiKey },
    },
  },
  {
    code: '404031',
    message: 'import does not exist',
    category: 'not_found',
    suggestion: 'Check the import id (imp_…) that POST /v3/projects/{project_id}/data/imports answered.',
    commonCauses: ['A typo in the id', 'The id belongs to the other environment (live or sandbox) or another tenant'],
    solutions: ['Use the id from the answer of the upload', 'Call the base URL of the environment the file was uploaded to'],
    example: {
      request: { method: 'GET', path: '/v3/data/imports/imp_0000000000000000000x', headers: apiKey },
      correct: { method: 'GET', path: '/v3/data/imports/imp_4n2k8q1m7p3x9c5v6b0z', headers: apiKey },
    },
  },
];
