import { ALARM_LEVELS, ALARM_STATUSES, type AlarmLevel, type AlarmStatus, type projects } from '@mp/contracts';

/**
 * How alarms are raised and cleared (docs/adr/0024-alarms.md). Operator-wide defaults
 * (MP_ALARM_*); the threshold rule's limits are the point's own warning and alarm thresholds.
 */
export interface AlarmSettings {
  /** Readings back under the limits that clear an alarm by themselves. */
  clearAfterReadings: number;
  /** Rate of change, mm per day; null leaves the level out (both null: no rate rule). */
  rateWarningMmPerDay: number | null;
  rateAlarmMmPerDay: number | null;
  /** The window the rate is measured over, hours. */
  rateWindowHours: number;
  /** How often a point is expected to report, seconds; null: no stale-data rule. */
  expectedIntervalSeconds: number | null;
  /** Stale after interval × factor without a reading (warning); alarm after twice that. */
  staleFactor: number;
  /** How often each replica looks for points that went stale. */
  staleCheckMs: number;
}

export const DEFAULT_ALARM_SETTINGS: AlarmSettings = {
  clearAfterReadings: 3,
  rateWarningMmPerDay: null,
  rateAlarmMmPerDay: null,
  rateWindowHours: 24,
  expectedIntervalSeconds: null,
  staleFactor: 3,
  staleCheckMs: 60_000,
};

export type AlarmRule = 'threshold' | 'rate' | 'stale';
export type { AlarmLevel, AlarmStatus };

export { ALARM_LEVELS, ALARM_STATUSES };
export const ALARM_RULES: readonly AlarmRule[] = ['threshold', 'rate', 'stale'];

/** The higher of two levels (an active alarm's level only rises). */
export const higher = (a: AlarmLevel, b: AlarmLevel): AlarmLevel => (ALARM_LEVELS.indexOf(b) > ALARM_LEVELS.indexOf(a) ? b : a);

/** The level a value reaches against warning/alarm limits (≥, as record statuses); null under both. */
export function levelOf(value: number, warning: number | null, alarm: number | null): AlarmLevel | null {
  if (alarm !== null && alarm > 0 && value >= alarm) return 'alarm';
  if (warning !== null && warning > 0 && value >= warning) return 'warning';
  return null;
}

/** A point's rules: its own (projects' `alarm_rules`) over the operator defaults. */
export function rulesFor(defaults: AlarmSettings, own: projects.AlarmRules | undefined): AlarmSettings {
  if (!own) return defaults;
  return {
    ...defaults,
    ...(own.clearAfterReadings !== undefined ? { clearAfterReadings: own.clearAfterReadings } : {}),
    ...(own.rateWarningMmPerDay !== undefined ? { rateWarningMmPerDay: own.rateWarningMmPerDay } : {}),
    ...(own.rateAlarmMmPerDay !== undefined ? { rateAlarmMmPerDay: own.rateAlarmMmPerDay } : {}),
    ...(own.rateWindowHours !== undefined ? { rateWindowHours: own.rateWindowHours } : {}),
    ...(own.expectedIntervalSeconds !== undefined ? { expectedIntervalSeconds: own.expectedIntervalSeconds } : {}),
    ...(own.staleFactor !== undefined ? { staleFactor: own.staleFactor } : {}),
  };
}

export const hasRateRule = (s: AlarmSettings) => s.rateWarningMmPerDay !== null || s.rateAlarmMmPerDay !== null;
