import { PROJECT_TRANSITIONS, TASK_TRANSITIONS } from '@mp/contracts/vocabulary';

export { DEVICE_TYPES, MEMBER_ROLES, SENSOR_TYPES } from '@mp/contracts/vocabulary';

/**
 * The status moves the console offers: the published tables the projects service enforces. The
 * API stays the judge: a move it refuses is shown with its 409 error. Keyed by any string, so a
 * status the console does not know offers no move.
 */
export const PROJECT_MOVES: Readonly<Record<string, readonly string[]>> = PROJECT_TRANSITIONS;
export const TASK_MOVES: Readonly<Record<string, readonly string[]>> = TASK_TRANSITIONS;

export const label = (s: string) => s.replace(/_/g, ' ');
