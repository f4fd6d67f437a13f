import type { monitoringData } from '@mp/contracts';

/**
 * The principal who acted (`usr_…` / `key_…`, or the e-mail address of a notification's recipient
 * who used its acknowledge link), as a small object; null when the readings did it.
 */
const actor = (id: string | undefined) =>
  id
    ? {
        principal_id: id,
        principal_type: id.startsWith('usr_') ? 'user' : id.startsWith('key_') ? 'api_key' : id.includes('@') ? 'recipient' : 'client',
      }
    : null;

/** API shapes (snake_case JSON) of the alarm messages (docs/adr/0024-alarms.md). */
export const presentAlarms = {
  alarm: (a: monitoringData.Alarm) => ({
    alarm_id: a.id,
    project_id: a.projectId,
    point_id: a.pointId,
    rule: a.rule,
    level: a.level,
    channel: a.channel ?? null,
    status: a.status,
    reason: a.reason,
    threshold: { warning: a.thresholdWarning ?? null, alarm: a.thresholdAlarm ?? null },
    value: a.value ?? null,
    first_data_id: a.firstDataId ?? null,
    last_data_id: a.lastDataId ?? null,
    last_measured_at: a.lastMeasuredAt ?? null,
    reading_count: a.readingCount,
    first_over: a.firstMeasuredAt ? { data_id: a.firstDataId ?? null, measured_at: a.firstMeasuredAt, count: a.openingCount } : null,
    normal_count: a.normalCount,
    opened_at: a.openedAt,
    updated_at: a.updatedAt,
    acknowledged: a.acknowledgedAt ? { at: a.acknowledgedAt, by: actor(a.acknowledgedBy), comment: a.acknowledgeComment ?? null } : null,
    cleared: a.clearedAt ? { at: a.clearedAt, by: actor(a.clearedBy), automatic: !a.clearedBy, comment: a.clearComment ?? null } : null,
    version: a.version,
  }),
  /** GET /alarms/{id} and the changes: the alarm with its history, oldest first. */
  withHistory: (a: monitoringData.Alarm) => ({
    ...presentAlarms.alarm(a),
    history: a.history.map((h) => ({
      at: h.at,
      action: h.action,
      level: h.level,
      status: h.status,
      by: actor(h.actorId),
      comment: h.comment ?? null,
      data_id: h.dataId ?? null,
      reason: h.reason ?? null,
    })),
  }),
};
