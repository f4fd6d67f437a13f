import type { CheckedRecord } from '../record-rules.js';

/**
 * One stored reading of a write, with its id. Its own module because the write rules hand readings
 * to the rate rule and the stale watch, which write-rules.ts imports: declared there, they imported each other.
 */
export interface Reading {
  record: CheckedRecord;
  id: string;
}
