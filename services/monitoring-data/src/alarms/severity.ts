import { POINT_STATUSES } from '@mp/contracts';

/**
 * Severity of the words a point's state is told in: a record's status (`normal` below every
 * alarm level) and an alarm's level, in the order POINT_STATUSES lists them (lowest first). A
 * word this service does not know ranks below `normal`, so it never hides a known level.
 */
const ORDER: readonly string[] = POINT_STATUSES;

export const severity = (word: string): number => ORDER.indexOf(word);

/** The more severe of two words; either may be absent. */
export function mostSevere(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return severity(b) > severity(a) ? b : a;
}
