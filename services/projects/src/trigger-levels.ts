import { channelOf, TRIGGER_LEVELS, type projects } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { PointRow } from './point-columns.js';

/** Trigger levels a point holds at most: three levels on a handful of channels, with room. */
export const MAX_TRIGGER_LEVELS = 30;

const bad = (code: string, field: string, detail: string, suggestion?: string) =>
  new DomainError(code, { field, detail, ...(suggestion ? { suggestion } : {}) });

/**
 * `trigger_levels` of a point of `sensorType` (docs/instruments.md): each names a level
 * (warning, alarm, action), a channel of the type, and `above` and/or `below`; one entry per level
 * and channel (422204 for a second one), `below` under `above` (422204).
 */
export function checkTriggerLevels(
  levels: readonly projects.TriggerLevel[],
  sensorType: string,
  derived: readonly projects.DerivedChannel[] = [],
): projects.TriggerLevel[] {
  if (levels.length > MAX_TRIGGER_LEVELS) {
    throw bad('400003', 'trigger_levels', `A point takes at most ${MAX_TRIGGER_LEVELS} trigger levels; got ${levels.length}.`);
  }
  const seen = new Set<string>();
  return levels.map((t, i) => {
    const field = `trigger_levels[${i}]`;
    if (!(TRIGGER_LEVELS as readonly string[]).includes(t.level)) {
      throw bad('422103', `${field}.level`, `level must be one of ${TRIGGER_LEVELS.join(', ')}; got ${JSON.stringify(t.level)}.`);
    }
    if (!channelOf(sensorType, t.channel) && !derived.some((d) => d.name === t.channel)) {
      throw bad(
        '422103',
        `${field}.channel`,
        `A ${sensorType} has no channel ${JSON.stringify(t.channel)}${derived.length ? ', nor is it one of the point’s derived channels' : ''}.`,
        'See the channels of each type with GET /v3/sensor-types.',
      );
    }
    if (t.above === undefined && t.below === undefined) throw bad('422101', `${field}.above`, 'A trigger level needs above, below or both.');
    for (const k of ['above', 'below'] as const) {
      if (t[k] !== undefined && !Number.isFinite(t[k])) throw bad('400003', `${field}.${k}`, `${k} must be a finite number.`);
    }
    if (t.above !== undefined && t.below !== undefined && t.below >= t.above) {
      throw bad('422204', `${field}.below`, `below (${t.below}) must be less than above (${t.above}).`);
    }
    const key = `${t.level} ${t.channel}`;
    if (seen.has(key)) throw bad('422204', `${field}.level`, `The ${t.level} level of channel ${t.channel} is given twice.`);
    seen.add(key);
    return { level: t.level, channel: t.channel, ...(t.above !== undefined ? { above: t.above } : {}), ...(t.below !== undefined ? { below: t.below } : {}) };
  });
}

/** The stored trigger levels (jsonb arrives parsed, or as text on some drivers). */
export function triggerLevelsOf(row: Pick<PointRow, 'trigger_levels'>): projects.TriggerLevel[] {
  const v = row.trigger_levels;
  if (v === null || v === undefined) return [];
  return typeof v === 'string' ? (JSON.parse(v) as projects.TriggerLevel[]) : v;
}
