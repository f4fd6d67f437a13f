import { z } from 'zod';
import { DEFAULT_ALARM_SETTINGS as D, type AlarmSettings } from './settings.js';

const optionalNumber = z.coerce.number().positive().max(1e9).optional();

/** MP_ALARM_* (README "Alarms"): how alarms are raised and cleared on every point. */
export const alarmConfigSchema = {
  MP_ALARM_CLEAR_AFTER_READINGS: z.coerce.number().int().min(1).max(1000).default(D.clearAfterReadings),
  MP_ALARM_RATE_WARNING_MM_PER_DAY: optionalNumber,
  MP_ALARM_RATE_ALARM_MM_PER_DAY: optionalNumber,
  MP_ALARM_RATE_WINDOW_HOURS: z.coerce.number().positive().max(8760).default(D.rateWindowHours),
  MP_ALARM_EXPECTED_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(31_536_000).optional(),
  MP_ALARM_STALE_FACTOR: z.coerce.number().int().min(1).max(1000).default(D.staleFactor),
  MP_ALARM_STALE_CHECK_MS: z.coerce.number().int().min(0).max(86_400_000).default(D.staleCheckMs),
};

type AlarmConfig = z.infer<z.ZodObject<typeof alarmConfigSchema>>;

export function alarmSettingsOf(c: AlarmConfig): AlarmSettings {
  return {
    clearAfterReadings: c.MP_ALARM_CLEAR_AFTER_READINGS,
    rateWarningMmPerDay: c.MP_ALARM_RATE_WARNING_MM_PER_DAY ?? null,
    rateAlarmMmPerDay: c.MP_ALARM_RATE_ALARM_MM_PER_DAY ?? null,
    rateWindowHours: c.MP_ALARM_RATE_WINDOW_HOURS,
    expectedIntervalSeconds: c.MP_ALARM_EXPECTED_INTERVAL_SECONDS ?? null,
    staleFactor: c.MP_ALARM_STALE_FACTOR,
    staleCheckMs: c.MP_ALARM_STALE_CHECK_MS,
  };
}
