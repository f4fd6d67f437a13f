import type { monitoringData } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import type { DataDeps } from '../deps.js';
import { applyAlarmStep } from './change-alarm.js';

/**
 * The acknowledge link of a notification mail (ADR 0090): the webhooks service checked the signed,
 * single-use link and calls this in the link's tenant and environment. The recipient may have no
 * account, so no project membership is asked for: the link, made for this alarm by a rule that a
 * member with write access created, is the authority. Recorded as acknowledged by `recipient`
 * (the e-mail address), in the history and the alarm.acknowledged event.
 */
export async function acknowledgeAsRecipient(
  deps: DataDeps,
  req: monitoringData.RecipientAcknowledgement,
  caller: CallerContext,
): Promise<monitoringData.Alarm> {
  if (caller.caller !== 'webhooks') {
    throw new DomainError('401004', {
      detail: 'Only acknowledge links of notification mails acknowledge as a recipient.',
      suggestion: 'Use POST /v3/alarms/{alarm_id}/acknowledge.',
    });
  }
  return applyAlarmStep(deps, 'acknowledge', req.id, caller, { type: 'recipient', id: req.email }, req.comment ?? null);
}
