import { isUniqueViolation } from '@mp/db';
import { DomainError, excerpt } from '@mp/errors';
import { DUPLICATE_SERIAL_CODE } from './device-row.js';

/** A calibration cannot fall due before it was made (422204). */
export function checkCalibration(calibratedAt: string | null, dueAt: string | null): void {
  if (calibratedAt && dueAt && dueAt < calibratedAt) {
    throw new DomainError('422204', {
      field: 'calibration_due_at',
      detail: 'calibration_due_at is earlier than calibrated_at.',
      suggestion: 'Send a calibration_due_at on or after calibrated_at.',
    });
  }
}

/** The serial-number conflict as a domain error; anything else unchanged. */
export function duplicateSerial(err: unknown, serial: string | undefined): unknown {
  if (isUniqueViolation(err, 'devices_serial_unique')) {
    return new DomainError(DUPLICATE_SERIAL_CODE, {
      field: 'serial_number',
      detail: `A device with serial number ${excerpt(serial)} already exists.`,
      suggestion: 'Use the existing device (GET /devices?q=<serial>), or check the serial number.',
    });
  }
  return err;
}
