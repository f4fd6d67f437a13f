import { isGeodetic } from '@mp/contracts';
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

/**
 * What a point's sensor type asks of it (docs/instruments.md): a geodetic type needs reference
 * coordinates and displacement thresholds (docs/rules.md#points); the others have neither
 * thresholds (their limits are trigger_levels) nor need a reference.
 */
export function checkTypeFields(sensorType: string, reference: unknown, warning: number, alarm: number): void {
  if (isGeodetic(sensorType)) {
    if (!reference) throw new DomainError('422101', { field: 'reference', detail: 'reference {x, y, z} is required.' });
    checkThresholds(warning, alarm);
    return;
  }
  if (warning !== 0 || alarm !== 0) {
    throw new DomainError('422204', {
      field: 'thresholds',
      detail: `thresholds are millimetres of displacement of the geodetic types; a ${sensorType} takes trigger_levels on its channels.`,
      suggestion: 'Send trigger_levels: [{ "level": "warning", "channel": "…", "above": … }] instead (GET /v3/sensor-types lists the channels).',
    });
  }
}
