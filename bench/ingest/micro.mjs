// The monitoring-data service's CPU per record on the write path, without I/O: the request as
// gRPC hands it over (protobuf, in the gateway's dictionary form), the per-record rules, ids, the insert's binary array parameters,
// data.created's JSON text and the answer's encoding. For judging changes to that code in
// isolation; the whole path is measured by run.mjs. `node bench/ingest/micro.mjs` (after a build;
// MICRO_ROUNDS=400 writes; BENCH_SMOKE=1 for a handful).
import { monitoringData } from '@mp/contracts';
import { encodeBinaryArray } from '../../packages/db/dist/array-param.js';
import { encodeParams } from '../../packages/db/dist/params.js';
// the service's own modules, as built (they are not part of its package's API)
import { checkRecords } from '../../services/monitoring-data/dist/record-rules.js';
import { dataCreatedBytes, formatAll } from '../../services/monitoring-data/dist/events.js';
import { newDataIds } from '../../services/monitoring-data/dist/ids.js';
import { insertParams } from '../../services/monitoring-data/dist/store-records.js';
import { reading, REFERENCE } from './readings.mjs';
import { expandColumns, writeResult } from '../../services/monitoring-data/dist/columns.js';
import { setting } from '../support/smoke.mjs';
import { completeChannels, instrumentSettings } from '../../services/monitoring-data/dist/instrument-channels.js';
import { sensorTypeSpec } from '@mp/contracts';

const POINTS = 200;
const RECORDS = 1000;
const ROUNDS = Number(setting('MICRO_ROUNDS', 400, 5));

const points = new Map();
const pointIds = [];
for (let i = 0; i < POINTS; i++) {
  const id = `pt_${i.toString(36).padStart(20, '0')}`;
  pointIds.push(id);
  points.set(id, {
    id,
    projectId: 'prj_1',
    name: `Benchmark point ${i}`,
    sensorType: 'total_station',
    ref: REFERENCE,
    warning: 10,
    alarm: 20,
    abruptLimit: 50,
    precision: 1,
    active: true,
    triggerLevels: [],
    conversion: null,
    calibrations: [],
    derived: [],
  });
}
const ctx = { project: { id: 'prj_1', name: 'Benchmark tunnel', status: 'in_progress', startDate: '2020-01-01' }, bounds: null, points };
const cols = {
  pointId: [],
  measuredAt: [],
  x: [],
  y: [],
  z: [],
  dx: [],
  dy: [],
  dz: [],
  precision: [],
  channelNames: [],
  channelOffset: [],
  channelIndex: [],
  channelValue: [],
};
for (let e = 0; e < RECORDS / POINTS; e++) {
  const at = new Date(Date.UTC(2025, 0, 1) + e * 60_000).toISOString().replace('Z', '+00:00');
  for (let i = 0; i < POINTS; i++) {
    const { x, y, z } = reading();
    cols.pointId.push(pointIds[i]);
    cols.measuredAt.push(at);
    cols.x.push(x);
    cols.y.push(y);
    cols.z.push(z);
    for (const k of ['dx', 'dy', 'dz']) cols[k].push(NaN);
  }
}
// in the dictionary form the gateway sends: each distinct point id and instant once
const dictionary = (values) => {
  const distinct = [...new Set(values)];
  const at = new Map(distinct.map((v, i) => [v, i]));
  return [distinct, values.map((v) => at.get(v))];
};
const [pointIdsOnce, pointIndex] = dictionary(cols.pointId);
const [instants, instantIndex] = dictionary(cols.measuredAt);
const records = { ...cols, pointId: [], measuredAt: [], pointIds: pointIdsOnce, pointIndex, instants, instantIndex };
const request = monitoringData.WriteRecordsRequest.encode({ projectId: 'prj_1', records }).finish();
const now = Date.UTC(2026, 0, 1);
const scope = { tenantId: 'ten_1', environment: 'live', projectId: 'prj_1' };

const stages = { decode: 0, rules: 0, ids: 0, params: 0, event: 0, answer: 0 };
const time = (stage, fn) => {
  const t = performance.now();
  const out = fn();
  stages[stage] += performance.now() - t;
  return out;
};
let bytes = 0;
for (let round = 0; round < ROUNDS; round++) {
  const req = time('decode', () => expandColumns(monitoringData.WriteRecordsRequest.decode(request).records));
  const { ok } = time('rules', () => checkRecords(req, ctx, now));
  const ids = time('ids', () => newDataIds(ok.length, now));
  // the insert's parameters as the service builds them, then as pg encodes them
  time('params', () => encodeParams(insertParams(scope, ok, ids, { batchId: null, now: '2026-01-01T00:00:00.000Z' }).params, { array: encodeBinaryArray }));
  const measuredAt = time('event', () => {
    const m = formatAll(ok);
    bytes += dataCreatedBytes(ctx.project, ok, ids, m).bytes.length;
    return m;
  });
  time('answer', () =>
    monitoringData.WriteRecordsResult.encode(writeResult({ ids, statuses: ok.map((r) => r.status), measuredAt, abnormalCount: 0 }, true)).finish(),
  );
}
const perRecord = (ms) => ((ms * 1000) / (ROUNDS * RECORDS)).toFixed(3);
const total = Object.values(stages).reduce((a, b) => a + b, 0);
console.log(`monitoring-data write path without I/O, µs per record (${ROUNDS} writes of ${RECORDS}; data.created ${Math.round(bytes / ROUNDS / 1024)} KB):`);
for (const [stage, ms] of Object.entries(stages)) console.log(`  ${stage.padEnd(7)} ${perRecord(ms)}`);
console.log(`  total   ${perRecord(total)}`);

// The same write of piezometers sending a vibrating wire's raw frequency and temperature, each
// converted by a dated calibration (ADR 0116): the rules stage with the conversion, and the
// conversion alone (the calibration valid at measured_at, G·(R₁ − R₀) + K·(T₁ − T₀)).
const piezometer = sensorTypeSpec('piezometer');
const calibrations = [
  {
    id: 'cal_2',
    method: 'vibrating_wire',
    validFrom: '2024-06-01T00:00:00Z',
    gaugeFactor: -0.1482,
    zeroReading: 8012.4,
    temperatureFactor: 0.0713,
    zeroTemperature: 21.3,
  },
  {
    id: 'cal_1',
    method: 'vibrating_wire',
    validFrom: '2020-01-01T00:00:00Z',
    gaugeFactor: -0.1479,
    zeroReading: 8010.2,
    temperatureFactor: 0.0713,
    zeroTemperature: 21.1,
  },
];
const vwPoints = new Map();
for (const id of pointIds) {
  vwPoints.set(id, {
    ...points.get(id),
    sensorType: 'piezometer',
    type: piezometer,
    triggerLevels: [{ level: 'alarm', channel: 'pore_pressure', above: 400 }],
    ...instrumentSettings(piezometer, { calibrations, derivedChannels: [] }),
  });
}
const vwCtx = { ...ctx, points: vwPoints };
const vwCols = {
  ...cols,
  x: [],
  y: [],
  z: [],
  dx: [],
  dy: [],
  dz: [],
  channelNames: ['frequency', 'temperature'],
  channelOffset: [0],
  channelIndex: [],
  channelValue: [],
};
for (let r = 0; r < RECORDS; r++) {
  vwCols.channelIndex.push(0, 1);
  vwCols.channelValue.push(2600 + (r % 400), 12 + (r % 10) / 10);
  vwCols.channelOffset.push(2 * (r + 1));
}
let vwRules = 0;
let convert = 0;
let sink = 0;
for (let round = 0; round < ROUNDS; round++) {
  let t = performance.now();
  const { ok } = checkRecords(vwCols, vwCtx, now);
  vwRules += performance.now() - t;
  if (ok.length !== RECORDS) throw new Error(`vibrating-wire records refused: ${RECORDS - ok.length}`);
  const inputs = ok.map((r) => ({ frequency: r.channels.frequency, temperature: r.channels.temperature }));
  t = performance.now();
  for (let i = 0; i < inputs.length; i++) sink += completeChannels(ok[i].point, inputs[i], ok[i].ms).pore_pressure;
  convert += performance.now() - t;
}
if (!Number.isFinite(sink)) throw new Error('the conversion gave a value that is not finite');
console.log(`vibrating-wire piezometers (raw frequency and temperature, dated calibrations), µs per record:`);
console.log(`  rules   ${perRecord(vwRules)} (with the conversion)`);
console.log(`  convert ${perRecord(convert)} (the conversion alone)`);
