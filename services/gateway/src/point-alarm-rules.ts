import { z } from 'zod';
import { integer, INT32 } from './bounds.js';
import type { projects } from '@mp/contracts';

/**
 * `alarm_rules` of a point (docs/adr/0024-alarms.md): every field optional, absent ones take the
 * operator defaults (MP_ALARM_*). The projects service checks each field's upper bound; the
 * counts are bounded here to what its int32 fields hold, so no value fails their encoding.
 */
export const alarmRulesBody = z.object({
  clear_after_readings: integer(1, INT32.max).optional(),
  rate_warning_mm_per_day: z.number().optional(),
  rate_alarm_mm_per_day: z.number().optional(),
  rate_window_hours: z.number().optional(),
  expected_interval_seconds: integer(1, INT32.max).optional(),
  stale_factor: integer(1, INT32.max).optional(),
});

export function toAlarmRules(b: z.infer<typeof alarmRulesBody>): projects.AlarmRules {
  const out: projects.AlarmRules = {};
  if (b.clear_after_readings !== undefined) out.clearAfterReadings = b.clear_after_readings;
  if (b.rate_warning_mm_per_day !== undefined) out.rateWarningMmPerDay = b.rate_warning_mm_per_day;
  if (b.rate_alarm_mm_per_day !== undefined) out.rateAlarmMmPerDay = b.rate_alarm_mm_per_day;
  if (b.rate_window_hours !== undefined) out.rateWindowHours = b.rate_window_hours;
  if (b.expected_interval_seconds !== undefined) out.expectedIntervalSeconds = b.expected_interval_seconds;
  if (b.stale_factor !== undefined) out.staleFactor = b.stale_factor;
  return out;
}

/** The point's own rules as the API shows them (null: the platform defaults apply). */
export const presentAlarmRules = (r: projects.AlarmRules | undefined) =>
  r
    ? {
        clear_after_readings: r.clearAfterReadings ?? null,
        rate_warning_mm_per_day: r.rateWarningMmPerDay ?? null,
        rate_alarm_mm_per_day: r.rateAlarmMmPerDay ?? null,
        rate_window_hours: r.rateWindowHours ?? null,
        expected_interval_seconds: r.expectedIntervalSeconds ?? null,
        stale_factor: r.staleFactor ?? null,
      }
    : null;
