import { ALARM_STEPS, type monitoringData } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import type { DataDeps } from '../deps.js';
import { eventScopeOf, raiseAlarmChange } from '../alarms/alarm-events.js';
import { acknowledge, clear } from '../alarms/alarm-store.js';
import { historyOf, loadAlarm, loadAlarmRow, toAlarm } from '../alarms/alarm-view.js';

/** From which statuses a person may take each step (@mp/contracts; the OpenAPI document prints it). */
const ALLOWED = { acknowledge: ALARM_STEPS.acknowledge.from, clear: ALARM_STEPS.clear.from };
const MAX_COMMENT = 500;

function checkComment(comment: string | null): void {
  if (comment !== null && comment.length > MAX_COMMENT) {
    throw new DomainError('400003', { field: 'comment', detail: `comment is at most ${MAX_COMMENT} characters long.`, suggestion: 'Shorten the comment.' });
  }
}

/**
 * POST /alarms/{id}/acknowledge and /clear: recorded with who (the caller's principal) and when,
 * in the alarm's history, and announced as alarm.acknowledged / alarm.cleared in the same
 * transaction. The row is locked first, so two people acting at once are served one after the
 * other and the second gets 409010.
 */
export async function changeAlarm(
  deps: DataDeps,
  step: 'acknowledge' | 'clear',
  req: monitoringData.AlarmChange,
  caller: CallerContext,
): Promise<monitoringData.Alarm> {
  checkComment(req.comment ?? null);
  // Access first, outside the transaction (it may ask the projects service).
  await loadAlarm(deps, caller, req.id, true);
  return applyAlarmStep(deps, step, req.id, caller, { type: caller.principalType, id: caller.principalId }, req.comment ?? null);
}

/**
 * The step itself, once access is settled: the row locked, the status checked (409010), the change,
 * its history entry and its event in one transaction.
 */
export async function applyAlarmStep(
  deps: DataDeps,
  step: 'acknowledge' | 'clear',
  id: string,
  caller: CallerContext,
  actor: { type: string; id: string },
  comment: string | null,
): Promise<monitoringData.Alarm> {
  checkComment(comment);
  const now = deps.clock.now().toISOString();
  const { alarm, event } = await deps.db.transaction(async (tx) => {
    const row = await loadAlarmRow(tx, caller, id, true);
    if (!(ALLOWED[step] as readonly string[]).includes(row.status)) {
      throw new DomainError('409010', {
        field: 'status',
        detail: `Alarm ${row.id} is ${row.status}; ${step} is allowed only when it is ${ALLOWED[step].join(' or ')}.`,
        suggestion:
          row.status === 'cleared'
            ? 'A cleared alarm stays cleared; the next breaking reading opens a new one.'
            : 'Read the alarm (GET /v3/alarms/{alarm_id}) and clear it instead.',
      });
    }
    const changed = step === 'acknowledge' ? await acknowledge(tx, row, actor, comment, now) : await clear(tx, row, actor, comment, now);
    const event = await raiseAlarmChange(
      tx,
      eventScopeOf(caller, now),
      step === 'acknowledge' ? 'alarm.acknowledged' : 'alarm.cleared',
      changed,
      actor,
      comment,
    );
    return { alarm: toAlarm(changed, await historyOf(tx, changed.id)), event };
  });
  deps.relay.kick([event]);
  return alarm;
}
