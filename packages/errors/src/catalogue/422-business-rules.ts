import type { ErrorEntry } from '../types.js';
import { json } from './shared.js';

/** 422: the request is well formed but breaks a business rule (category business_rule). */
export const businessRuleErrors: ErrorEntry[] = [
  {
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
  {
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
  {
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
  {
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
  {
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
  {
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
  {
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
  {
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
  {
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
  {
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
  {
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
  {
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
  {
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
  {
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
];
