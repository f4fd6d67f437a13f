import type { PointData, ReportData } from '../src/gather.js';

// The report the rendering tests (and the sample pages of docs/reports/) are drawn from: a month
// of six-hourly buckets for two points, one of them with a name full of non-ASCII characters.
const FROM = Date.parse('2026-01-01T00:00:00Z');
const TO = Date.parse('2026-02-01T00:00:00Z');

export function samplePoint(i: number, name: string): PointData {
  const buckets = [];
  for (let t = FROM; t < TO; t += 6 * 3600_000) {
    const k = (t - FROM) / 86_400_000;
    const s = (v: number) => ({ min: v - 0.2, avg: v, max: v + 0.2 });
    buckets.push({ start: new Date(t).toISOString(), count: 6, dx: s(Math.sin(k / 3) * 4), dy: s(k * 0.3 - 2), dz: s(-k * 0.45) });
  }
  return {
    point: {
      id: `pt_${String(i).padStart(20, '0')}`,
      number: `JC-0${i}`,
      name,
      warning: 10,
      alarm: 20,
      x: 3512345.1 + i * 12.5,
      y: 512345.6 + (i % 2) * 8,
      channel: null,
      channels: [],
    },
    buckets,
    intervalMs: 6 * 3600_000,
    count: buckets.length * 6,
    stats: {
      dx: { min: -4.2, max: 4.2, mean: 0.1, last: 1.234, ratePerDay: 0.01 },
      dy: { min: -2.2, max: 7.2, mean: 2.5, last: -0.5, ratePerDay: 0.3 },
      dz: { min: -14.1, max: 0.2, mean: -7, last: -13.95, ratePerDay: -0.45 },
    },
    channelStats: null,
    latest: {
      id: 'dat_00000000000000000001',
      projectId: 'prj_00000000000000000001',
      pointId: `pt_${String(i).padStart(20, '0')}`,
      measuredAt: '2026-01-31T23:00:00+08:00',
      values: { dx: 1.234, dy: -0.5, dz: -13.95 },
      status: 'warning',
      qualityFlag: 'valid',
      createdAt: '2026-02-01T00:00:00Z',
      updatedAt: '2026-02-01T00:00:00Z',
      version: 1,
      units: {},
    },
    abnormal: { warning: 3, alarm: 0 },
    alarms: { warning: 1, alarm: 0 },
  };
}

export const sampleReport = (): ReportData => ({
  id: 'rpt_00000000000000000001',
  title: 'Monthly report: Metro Line 4',
  from: new Date(FROM).toISOString(),
  to: new Date(TO).toISOString(),
  timeZone: 'Europe/Berlin',
  requestedAt: '2026-02-01T01:00:00.000Z',
  templateName: 'Monthly',
  sections: ['summary', 'alarms', 'latest', 'points'],
  project: { id: 'prj_00000000000000000001', name: 'Metro Line 4 tunnel', number: 'ML4-2026' },
  points: [samplePoint(1, 'Crown settlement JC-01'), samplePoint(2, 'Schacht Süd – Ø 12 m, ±0.5 µm')],
  missingPointIds: [],
  dataAsOf: '2026-01-31T15:00:00.000Z',
  tenant: { name: 'Baugrund Nord GmbH', logo: null },
  approval: null,
});

/** A piezometer of the sample report: its primary channel (pore_pressure, kPa) with trigger levels. */
export function samplePiezometer(i: number, name: string): PointData {
  const buckets = [];
  for (let t = FROM; t < TO; t += 6 * 3600_000) {
    const k = (t - FROM) / 86_400_000;
    const v = 180 + k * 2.5;
    buckets.push({ start: new Date(t).toISOString(), count: 6, value: { min: v - 1, avg: v, max: v + 1 } });
  }
  const id = `pt_${String(i).padStart(20, '0')}`;
  return {
    point: {
      id,
      number: `PZ-0${i}`,
      name,
      warning: 0,
      alarm: 0,
      x: 0,
      y: 0,
      channel: {
        name: 'pore_pressure',
        unit: 'kPa',
        levels: [
          { level: 'warning', above: 250, below: null },
          { level: 'alarm', above: 300, below: null },
        ],
      },
      channels: [
        { name: 'pore_pressure', unit: 'kPa' },
        { name: 'frequency', unit: 'Hz' },
        { name: 'temperature', unit: '°C' },
      ],
    },
    buckets,
    intervalMs: 6 * 3600_000,
    count: buckets.length * 6,
    stats: { dx: null, dy: null, dz: null },
    channelStats: { min: 179, max: 258.5, mean: 218.75, last: 257.25, ratePerDay: 2.5 },
    latest: {
      id: 'dat_00000000000000000009',
      projectId: 'prj_00000000000000000001',
      pointId: id,
      measuredAt: '2026-01-31T23:00:00+08:00',
      values: { channels: { values: { pore_pressure: 257.25, frequency: 2480.5, temperature: 9.5 } } },
      status: 'warning',
      qualityFlag: 'valid',
      createdAt: '2026-02-01T00:00:00Z',
      updatedAt: '2026-02-01T00:00:00Z',
      version: 1,
      units: {},
    },
    abnormal: { warning: 4, alarm: 0 },
    alarms: { warning: 1, alarm: 0 },
  };
}
