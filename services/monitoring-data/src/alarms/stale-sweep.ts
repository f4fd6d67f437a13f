import type { Database, Queryable } from '@mp/db';
import type { HandedEvent, OutboxRelay } from '@mp/events';
import type { Clock, Logger } from '@mp/kit';
import { raiseAbnormal, raiseAlarmRaised, type EventScope } from './alarm-events.js';
import { lockActive, openOrFind, recordBreach, type AlarmRow, type Breach } from './alarm-store.js';

interface WatchRow {
  point_id: string;
  tenant_id: string;
  environment: string;
  project_id: string;
  project_name: string;
  point_name: string;
  sensor_type: string;
  warning: number;
  alarm: number;
  expected_interval_s: number;
  stale_factor: number;
}

interface LastRecord {
  id: string;
  measured_at: string;
  utc_offset: number;
  dx: number | null;
  dy: number | null;
  dz: number | null;
}

/** Points claimed per transaction: short transactions, and other replicas take the rest meanwhile. */
const CLAIM = 100;

/** 3 h 10 min, 45 s, 2 d 4 h: a duration as people read it. */
export function duration(seconds: number): string {
  const s = Math.round(seconds);
  const parts: [number, string][] = [
    [Math.floor(s / 86_400), 'd'],
    [Math.floor((s % 86_400) / 3600), 'h'],
    [Math.floor((s % 3600) / 60), 'min'],
    [s % 60, 's'],
  ];
  const shown = parts.filter(([n]) => n > 0).slice(0, 2);
  return shown.length ? shown.map(([n, u]) => `${n} ${u}`).join(' ') : '0 s';
}

/**
 * The scheduled stale-data check. Every replica runs it; a point due for a check is claimed with
 * FOR UPDATE SKIP LOCKED and its next check moved on in the same transaction, so each due point
 * is judged once across replicas. A point silent for its expected interval × factor gets a
 * `warning` alarm, twice that an `alarm`; each raises data.abnormal carrying the point's last
 * record. The next reading clears it (write-rules.ts).
 */
export class StaleSweep {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly deps: { db: Database; clock: Clock; logger: Logger; relay: Pick<OutboxRelay, 'kick'> },
    private readonly everyMs: number,
  ) {}

  start(): void {
    if (this.everyMs <= 0) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.runOnce()
        .catch((err) => this.deps.logger.warn({ err }, 'stale-data check failed; will retry'))
        .finally(() => (this.running = null));
    }, this.everyMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Judges every point due now; returns how many this replica judged. */
  async runOnce(): Promise<number> {
    let judged = 0;
    for (;;) {
      const { count, events } = await this.deps.db.transaction((tx) => this.claimAndJudge(tx));
      judged += count;
      if (events.length) this.deps.relay.kick(events);
      if (count < CLAIM) return judged;
    }
  }

  private async claimAndJudge(tx: Queryable): Promise<{ count: number; events: HandedEvent[] }> {
    const now = this.deps.clock.now();
    const nowIso = now.toISOString();
    const { rows } = await tx.query<WatchRow>(
      `SELECT point_id, tenant_id, environment, project_id, project_name, point_name, sensor_type, warning, alarm, expected_interval_s, stale_factor
         FROM alarm_watch WHERE next_check_at <= $1 ORDER BY next_check_at LIMIT ${CLAIM} FOR UPDATE SKIP LOCKED`,
      [nowIso],
    );
    const events: HandedEvent[] = [];
    for (const w of rows) {
      const last = (
        await tx.query<LastRecord>(
          `SELECT id, measured_at, utc_offset, dx, dy, dz FROM data_records WHERE point_id = $1 AND quality_flag <> 'invalid' ORDER BY measured_at DESC LIMIT 1`,
          [w.point_id],
        )
      ).rows[0];
      if (!last) {
        await tx.query('UPDATE alarm_watch SET next_check_at = NULL WHERE point_id = $1', [w.point_id]);
        continue;
      }
      const lastMs = Date.parse(last.measured_at);
      const warnAfter = w.expected_interval_s * w.stale_factor;
      const silent = (now.getTime() - lastMs) / 1000;
      const level = silent >= 2 * warnAfter ? 'alarm' : silent >= warnAfter ? 'warning' : null;
      // Next look: when it would become stale, or escalate; nothing more once at `alarm`.
      const next = level === 'alarm' ? null : new Date(lastMs + (level ? 2 : 1) * warnAfter * 1000).toISOString();
      await tx.query('UPDATE alarm_watch SET next_check_at = $2, last_measured_at = $3 WHERE point_id = $1', [w.point_id, next, last.measured_at]);
      if (!level) continue;
      const breach: Breach = {
        level,
        reason: `stale: no reading for ${duration(silent)}, expected every ${duration(w.expected_interval_s)} (${level} after ${duration(level === 'alarm' ? 2 * warnAfter : warnAfter)})`,
        warning: warnAfter,
        alarm: 2 * warnAfter,
        value: Math.round(silent),
        dataId: last.id,
        measuredAt: last.measured_at,
      };
      const scope = { tenantId: w.tenant_id, environment: w.environment, projectId: w.project_id };
      const [active] = await lockActive(tx, [w.point_id]).then((all) => all.filter((a) => a.rule === 'stale'));
      let raised: { type: 'alarm.opened' | 'alarm.escalated'; row: AlarmRow } | null = null;
      const escalate = async (row: AlarmRow) => {
        const updated = await recordBreach(tx, row, breach, 0, nowIso);
        return updated.escalated ? { type: 'alarm.escalated' as const, row: updated.row } : null;
      };
      if (active) raised = await escalate(active);
      else {
        const found = await openOrFind(tx, scope, w.point_id, 'stale', breach, nowIso);
        raised = found.opened ? { type: 'alarm.opened', row: found.row } : await escalate(found.row);
      }
      if (!raised) continue;
      const eventScope: EventScope = { tenantId: w.tenant_id, environment: w.environment as EventScope['environment'], occurredAt: nowIso };
      events.push(
        await raiseAlarmRaised(tx, eventScope, raised.type, raised.row, { projectName: w.project_name, pointName: w.point_name, measuredAt: last.measured_at }),
      );
      events.push(
        await raiseAbnormal(
          tx,
          eventScope,
          { id: w.project_id, name: w.project_name },
          level,
          {
            dataId: last.id,
            pointId: w.point_id,
            pointName: w.point_name,
            sensorType: w.sensor_type,
            ms: lastMs,
            offset: last.utc_offset,
            dx: last.dx,
            dy: last.dy,
            dz: last.dz,
          },
          { warning: w.warning, alarm: w.alarm },
          breach.reason,
        ),
      );
    }
    return { count: rows.length, events };
  }
}
