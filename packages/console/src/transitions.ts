/**
 * The status moves the console offers, as services/projects/src/transitions.ts publishes them
 * (README "Projects, tasks…"). The API stays the judge: a move it refuses is shown with its 409
 * error. test/browser/console-projects.test.ts checks that these tables, the sensor and device
 * types and the roles equal the service's.
 */
export const PROJECT_MOVES: Record<string, string[]> = {
  not_started: ['in_progress', 'archived'],
  in_progress: ['paused', 'completed'],
  paused: ['in_progress', 'completed'],
  completed: ['in_progress', 'archived'],
  archived: [],
};

export const TASK_MOVES: Record<string, string[]> = {
  pending: ['in_progress', 'cancelled'],
  assigned: ['pending', 'in_progress', 'cancelled'],
  in_progress: ['assigned', 'completed', 'cancelled'],
  completed: [],
  cancelled: [],
};

export const SENSOR_TYPES = [
  'total_station',
  'gnss',
  'level',
  'inclinometer',
  'tiltmeter',
  'settlement_gauge',
  'extensometer',
  'crack_meter',
  'piezometer',
  'strain_gauge',
  'water_level_gauge',
];
export const DEVICE_TYPES = [...SENSOR_TYPES, 'data_logger', 'other'];
export const MEMBER_ROLES = ['owner', 'editor', 'viewer'];

export const label = (s: string) => s.replace(/_/g, ' ');
