import { ALARM_LEVELS } from '@mp/contracts/vocabulary';
import type { Json } from './api';
import { Badge } from './ui';

/**
 * How levels and point states are shown: a colour class per level (lowest first, as ALARM_LEVELS
 * orders them), grey for stale points, outlined for points without data. A level the console does
 * not know yet still gets a class (`level-<name>`) and ranks above the ones it knows.
 */
export { ALARM_LEVELS };

const RANK: readonly string[] = ['normal', ...ALARM_LEVELS];
export const rank = (level: string | null | undefined) => (level ? (RANK.includes(level) ? RANK.indexOf(level) : RANK.length) : -1);

/** Badge tone of a level or point status. */
export const TONE = (level: string | null | undefined) => (level === 'normal' ? 'good' : level === 'warning' ? 'warn' : level ? 'bad' : 'idle');

export function LevelBadge({ level }: { level: string }) {
  return <Badge tone={TONE(level)}>{level}</Badge>;
}

/** A point's state in words and as a class: stale first (its colour would be old news), then its status. */
export function pointState(p: Json): { cls: string; text: string } {
  if (p.stale) return { cls: 'stale', text: `stale${p.status ? ` (last ${p.status})` : ''}` };
  if (!p.status) return { cls: 'nodata', text: 'no data' };
  return { cls: `level-${p.status}`, text: p.status };
}

/** "2 alarm · 1 warning": the counts of a project's open alarms, highest level first. */
export function countsText(open: { count: number; by_level: Record<string, number> } | null | undefined): string {
  if (!open) return 'alarms not shown (needs data:read)';
  if (!open.count) return 'no open alarms';
  return Object.entries(open.by_level)
    .filter(([, n]) => n > 0)
    .sort(([a], [b]) => rank(b) - rank(a))
    .map(([level, n]) => `${n} ${level}`)
    .join(' · ');
}
