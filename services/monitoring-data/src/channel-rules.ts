import { type ChannelSpec, type projects, type RecordStatus, type SensorTypeSpec } from '@mp/contracts';

/** Rank of a status: normal 0, warning 1, alarm 2, action 3 (the highest crossed wins). */
export const STATUS_RANK: Readonly<Record<RecordStatus, number>> = { normal: 0, warning: 1, alarm: 2, action: 3 };

/** The highest trigger level a reading crosses, and on which channel (null: none). */
export function triggerStatus(
  levels: readonly projects.TriggerLevel[],
  valueOf: (channel: string) => number | null | undefined,
): { level: RecordStatus; channel: string } | null {
  let best: { level: RecordStatus; channel: string } | null = null;
  for (const t of levels) {
    const v = valueOf(t.channel);
    if (v === null || v === undefined) continue;
    if ((t.above !== undefined && v > t.above) || (t.below !== undefined && v < t.below)) {
      const level = t.level as RecordStatus;
      if (!best || STATUS_RANK[level] > STATUS_RANK[best.level]) best = { level, channel: t.channel };
    }
  }
  return best;
}

/** A refusal of one value: code, the value's field below `values.` and why. */
export interface ChannelFailure {
  code: '422101' | '422201';
  channel: string;
  detail: string;
  suggestion?: string;
}

/**
 * The instrument channels of one record of a point without coordinates (docs/instruments.md),
 * `names[k]` holding `values[k]`: each a channel of the type (422101 naming it otherwise), within
 * its plausible range (422201), and the primary channel present — or its raw channel, which the
 * conversion turns into it. Returns the channels by name, or the first failure.
 */
export function checkChannels(
  type: SensorTypeSpec,
  names: readonly string[],
  values: readonly number[],
): { channels: Record<string, number> } | ChannelFailure {
  const channels: Record<string, number> = {};
  for (let k = 0; k < names.length; k++) {
    const name = names[k]!;
    const spec: ChannelSpec | undefined = type.channels.find((c) => c.name === name);
    if (!spec) {
      return {
        code: '422101',
        channel: name,
        detail: `A ${type.id} has no channel ${name}; its channels are ${type.channels.map((c) => c.name).join(', ')}.`,
        suggestion: 'Send the channels of the point’s sensor type (GET /v3/sensor-types).',
      };
    }
    const v = values[k]!;
    if (spec.range && (v < spec.range[0] || v > spec.range[1])) {
      return {
        code: '422201',
        channel: name,
        detail: `${name} = ${v} ${spec.unit} lies outside the plausible range ${spec.range[0]} … ${spec.range[1]} ${spec.unit} of a ${type.id}.`,
        suggestion: `Send ${name} in ${spec.unit}, or check the sensor.`,
      };
    }
    channels[name] = v;
  }
  const primary = type.channels.find((c) => c.name === type.primary)!;
  if (channels[primary.name] === undefined && !(primary.from && channels[primary.from] !== undefined)) {
    return {
      code: '422101',
      channel: primary.name,
      detail: `values.${primary.name} (${primary.unit}) is required for a ${type.id}${primary.from ? `, or its raw channel ${primary.from} with a calibrated point` : ''}.`,
    };
  }
  return { channels };
}
