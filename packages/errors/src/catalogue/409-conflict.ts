import type { ErrorEntry } from '../types.js';
import { json } from './shared.js';

/** 409: the request conflicts with the current state (category conflict). */
export const conflictErrors: ErrorEntry[] = [
  {
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
  {
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
  {
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
  {
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
  {
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
  {
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
  // Not in the specification's table (see docs/adr/0004-error-code-extensions.md).
  {
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
  {
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
  {
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
  {
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
  {
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
  {
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
];
