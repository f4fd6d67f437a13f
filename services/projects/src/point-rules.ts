import { DomainError } from '@mp/errors';
import { checkNumber } from './validation.js';

/** Thresholds are displacements in millimetres: both positive, warning below alarm (422204). */
export function checkThresholds(warning: number, alarm: number): void {
  checkNumber(warning, 'thresholds.warning', { positive: true });
  checkNumber(alarm, 'thresholds.alarm', { positive: true });
  if (warning >= alarm) {
    throw new DomainError('422204', {
      field: 'thresholds.warning',
      detail: `thresholds.warning (${warning} mm) must be below thresholds.alarm (${alarm} mm).`,
      suggestion: 'Send a warning threshold smaller than the alarm threshold.',
    });
  }
}

/** Reference coordinates in metres. */
export function checkReference(r: { x: number; y: number; z: number }): { x: number; y: number; z: number } {
  for (const a of ['x', 'y', 'z'] as const) checkNumber(r[a], `reference.${a}`);
  return { x: r.x, y: r.y, z: r.z };
}
