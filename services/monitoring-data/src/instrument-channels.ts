import type { projects, SensorTypeSpec } from '@mp/contracts';
import { compileExpression, convertRaw, isExpressionProblem, type CalibrationCoefficients, type CompiledExpression } from '@mp/kit';

// Conversion of raw readings by a point's dated calibrations (ADR 0116) and its derived channels
// (ADR 0117), at every write and at every recomputation: one function for both, so a recomputed
// reading holds exactly what a write of it now would store.

export interface PointCalibration extends CalibrationCoefficients {
  id: string;
  validFromMs: number;
}

export interface DerivedChannelSpec {
  name: string;
  unit: string;
  compiled: CompiledExpression;
}

/** What a point converts and computes (part of its PointInfo). */
export interface InstrumentSettings {
  /** The raw channel its calibrations convert and the measured channel they give (null: none). */
  conversion: { raw: string; channel: string } | null;
  /** Newest valid_from first. */
  calibrations: PointCalibration[];
  /** In their order: each may read the ones before it. */
  derived: DerivedChannelSpec[];
}

export function instrumentSettings(type: SensorTypeSpec | undefined, p: Pick<projects.PointSpec, 'calibrations' | 'derivedChannels'>): InstrumentSettings {
  const converted = type?.channels.find((c) => c.from !== undefined);
  const calibrations = p.calibrations
    .map((c) => ({ ...c, validFromMs: Date.parse(c.validFrom) }))
    .filter((c) => Number.isFinite(c.validFromMs))
    .sort((a, b) => b.validFromMs - a.validFromMs);
  const known = new Set(type?.channels.map((c) => c.name) ?? []);
  const derived: DerivedChannelSpec[] = [];
  for (const d of p.derivedChannels) {
    // The projects service checked each expression; one this release cannot read is left out.
    const compiled = compileExpression(d.expression, known);
    known.add(d.name);
    if (!isExpressionProblem(compiled)) derived.push({ name: d.name, unit: d.unit, compiled });
  }
  return { conversion: converted ? { raw: converted.from!, channel: converted.name } : null, calibrations, derived };
}

/** The calibration valid at `ms`: the one with the latest valid_from at or before it. */
export function calibrationAt(calibrations: readonly PointCalibration[], ms: number): PointCalibration | undefined {
  for (const c of calibrations) if (c.validFromMs <= ms) return c;
  return undefined;
}

/** Rounds away floating-point noise (0.1·3 → 0.3): nine decimals are far below any instrument's resolution. */
const round9 = (v: number) => Math.round(v * 1e9) / 1e9;

/**
 * Completes a reading's channels in place: the measured channel from the raw one with the
 * calibration valid at `ms` (replacing a measured value sent beside the raw one; left as sent when
 * no calibration is valid then, or the reading has no raw value), then each derived channel in
 * order. A value that cannot be computed (an input absent, ÷ 0, not finite) is absent, never NaN.
 */
export function completeChannels(s: InstrumentSettings, channels: Record<string, number>, ms: number): Record<string, number> {
  const conv = s.conversion;
  if (conv !== null && s.calibrations.length > 0) {
    const raw = channels[conv.raw];
    if (raw !== undefined) {
      const cal = calibrationAt(s.calibrations, ms);
      if (cal) {
        const v = convertRaw(cal, raw, channels.temperature);
        if (v === undefined) delete channels[conv.channel];
        else channels[conv.channel] = round9(v);
      }
    }
  }
  for (const d of s.derived) {
    const v = d.compiled.evaluate(channels);
    if (v === undefined) delete channels[d.name];
    else channels[d.name] = round9(v);
  }
  return channels;
}
