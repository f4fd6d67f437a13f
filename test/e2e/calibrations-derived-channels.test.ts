import { queryTestDatabase } from '@mp/testing';
import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';

// Dated calibrations (ADR 0116) and derived channels (ADR 0117) through the HTTPS gateway, with
// values computed by hand in the comments: conversion of raw readings at write time by the
// calibration valid at measured_at, the recomputation after a back-dated calibration, derived
// channels with trigger levels on them, and the refusals, each with its envelope and no effect.
describe('calibrations and derived channels through the gateway', () => {
  let t: TestPlatform;
  let key: string;
  let projectId: string;
  const h = (k = key) => ({ 'x-api-key': k });
  const write = (records: unknown[]) => t.api('POST', `/projects/${projectId}/data`, { headers: h(), body: { records } });
  const point = async (body: Record<string, unknown>) => {
    const res = await t.api('POST', `/projects/${projectId}/points`, { headers: h(), body });
    expect(res.status).toBe(200);
    return res.body.data.id as string;
  };
  const values = async (pointId: string) =>
    (await t.api('GET', `/points/${pointId}/data?order=asc&limit=100`, { headers: h() })).body.data.items.map(
      (r: { measured_at: string; values: Record<string, number>; status: string }) => ({ at: r.measured_at, values: r.values, status: r.status }),
    );

  beforeAll(async () => {
    t = await startTestPlatform();
    key = await t.apiKey(['project:read', 'project:write', 'data:read', 'data:write']);
    projectId = (await t.api('POST', '/projects', { headers: h(), body: { name: 'Dam calibrations', number: 'DAM-C', start_date: '2026-01-01' } })).body.data
      .id;
    expect((await t.api('PUT', `/projects/${projectId}/status`, { headers: h(), body: { status: 'in_progress' } })).status).toBe(200);
  });
  afterAll(() => t?.stop());

  describe('conversion at write time', () => {
    it('converts a vibrating-wire frequency with and without temperature correction (Geokon form)', async () => {
      // G = −0.25 kPa/digit, R₀ = 8000 digits. f = 2700 Hz → R₁ = 2700²/1000 = 7290 digits →
      // P = −0.25 · (7290 − 8000) = 177.5 kPa.
      const plain = await point({
        number: 'PZ-VW',
        name: 'Piezometer',
        sensor_type: 'piezometer',
        calibration: { method: 'vibrating_wire', gauge_factor: -0.25, zero_reading: 8000 },
      });
      // With K = 0.1 kPa/°C, T₀ = 20 °C and T₁ = 15 °C: 177.5 + 0.1 · (15 − 20) = 177.0 kPa.
      const corrected = await point({
        number: 'PZ-VWT',
        name: 'Piezometer, temperature corrected',
        sensor_type: 'piezometer',
        calibration: { method: 'vibrating_wire', gauge_factor: -0.25, zero_reading: 8000, temperature_factor: 0.1, zero_temperature: 20 },
      });
      const res = await write([
        { point_id: plain, measured_at: '2026-03-01T08:00:00Z', values: { frequency: 2700, temperature: 15 } },
        { point_id: corrected, measured_at: '2026-03-01T08:00:00Z', values: { frequency: 2700, temperature: 15 } },
        // no temperature in the reading: no correction (docs/instruments.md)
        { point_id: corrected, measured_at: '2026-03-01T09:00:00Z', values: { frequency: 2700 } },
      ]);
      expect(res.status).toBe(200);
      expect((await values(plain))[0].values).toEqual({ frequency: 2700, temperature: 15, pore_pressure: 177.5 });
      const c = await values(corrected);
      expect(c[0].values).toEqual({ frequency: 2700, temperature: 15, pore_pressure: 177 });
      expect(c[1].values).toEqual({ frequency: 2700, pore_pressure: 177.5 });
    });

    it('converts with the linear and polynomial methods, and a tipping bucket with linear', async () => {
      // crack meter, linear: 0.05 · 2500 − 10 = 115 mm
      const crack = await point({ number: 'CM-1', name: 'Crack', sensor_type: 'crack_meter', calibration: { method: 'linear', factor: 0.05, offset: -10 } });
      // load cell, polynomial: 1e-5 · 3000² + 0.02 · 3000 − 5 = 90 + 60 − 5 = 145 kN
      const load = await point({ number: 'LC-1', name: 'Load', sensor_type: 'load_cell', calibration: { method: 'polynomial', a: 1e-5, b: 0.02, c: -5 } });
      // rain gauge, 0.2 mm per tip: 12 tips → 2.4 mm
      const rain = await point({ number: 'RG-1', name: 'Rain', sensor_type: 'rain_gauge', calibration: { method: 'linear', factor: 0.2, offset: 0 } });
      const res = await write([
        { point_id: crack, measured_at: '2026-03-01T08:00:00Z', values: { frequency: 2500 } },
        { point_id: load, measured_at: '2026-03-01T08:00:00Z', values: { frequency: 3000 } },
        { point_id: rain, measured_at: '2026-03-01T08:00:00Z', values: { tips: 12 } },
      ]);
      expect(res.status).toBe(200);
      expect((await values(crack))[0].values).toEqual({ frequency: 2500, crack_width: 115 });
      expect((await values(load))[0].values).toEqual({ frequency: 3000, load: 145 });
      expect((await values(rain))[0].values).toEqual({ tips: 12, rainfall: 2.4 });
    });

    it('picks the calibration valid at measured_at, and stores a reading without the raw channel as sent', async () => {
      const pz = await point({
        number: 'PZ-H',
        name: 'History',
        sensor_type: 'piezometer',
        calibration: { method: 'vibrating_wire', gauge_factor: -0.25, zero_reading: 8000, valid_from: '2026-02-01T00:00:00Z' },
      });
      const added = await t.api('POST', `/points/${pz}/calibrations`, {
        headers: h(),
        body: { method: 'vibrating_wire', gauge_factor: -0.25, zero_reading: 7900, valid_from: '2026-03-10T00:00:00+08:00' },
      });
      expect(added.status).toBe(200);
      const res = await write([
        // before the first calibration: kept raw, nothing to convert with
        { point_id: pz, measured_at: '2026-01-20T00:00:00Z', values: { frequency: 2700 } },
        // first calibration: −0.25 · (7290 − 8000) = 177.5
        { point_id: pz, measured_at: '2026-03-09T15:59:59Z', values: { frequency: 2700 } },
        // second, from 2026-03-09T16:00:00Z: −0.25 · (7290 − 7900) = 152.5
        { point_id: pz, measured_at: '2026-03-09T16:00:00Z', values: { frequency: 2700 } },
        { point_id: pz, measured_at: '2026-03-11T00:00:00Z', values: { pore_pressure: 42 } },
      ]);
      expect(res.status).toBe(200);
      expect((await values(pz)).map((r: { values: unknown }) => r.values)).toEqual([
        { frequency: 2700 },
        { frequency: 2700, pore_pressure: 177.5 },
        { frequency: 2700, pore_pressure: 152.5 },
        { pore_pressure: 42 },
      ]);
      const list = await t.api('GET', `/points/${pz}/calibrations`, { headers: h() });
      expect(list.status).toBe(200);
      expect(list.body.data.items.map((c: { valid_from: string }) => c.valid_from)).toEqual(['2026-03-09T16:00:00.000Z', '2026-02-01T00:00:00.000Z']);
      expect(list.body.data.items[0]).toMatchObject({
        method: 'vibrating_wire',
        gauge_factor: -0.25,
        zero_reading: 7900,
        temperature_factor: null,
        zero_temperature: null,
        raw_channel: 'frequency',
        channel: 'pore_pressure',
      });
      expect(list.body.data.items[0].id).toMatch(/^cal_[0-9a-z]{20}$/);
      expect(list.body.data.items[0].created_by).toMatch(/^(key|usr)_/);
      expect(list.body.data.has_more).toBe(false);
    });
  });

  describe('a back-dated calibration recomputes the readings from valid_from on', () => {
    it('changes the readings after valid_from (values and status) and leaves the earlier ones', async () => {
      const pz = await point({
        number: 'PZ-R',
        name: 'Recomputed',
        sensor_type: 'piezometer',
        trigger_levels: [{ level: 'alarm', channel: 'pore_pressure', above: 170 }],
        calibration: { method: 'vibrating_wire', gauge_factor: -0.25, zero_reading: 8000 },
      });
      const first = await write([
        { point_id: pz, measured_at: '2026-03-01T00:00:00Z', values: { frequency: 2700 } },
        { point_id: pz, measured_at: '2026-03-02T06:00:00Z', values: { frequency: 2700, temperature: 12 } },
        { point_id: pz, measured_at: '2026-03-02T12:00:00Z', values: { pore_pressure: 10 } },
        { point_id: pz, measured_at: '2026-03-03T00:00:00Z', values: { frequency: 2700 } },
      ]);
      expect(first.body.data.records.map((r: { status: string }) => r.status)).toEqual(['alarm', 'alarm', 'normal', 'alarm']);
      const before = await queryTestDatabase<{ id: string; version: number }>(
        t.db.url,
        'SELECT id, version FROM monitoring_data.data_records WHERE point_id = $1 ORDER BY measured_at',
        [pz],
      );

      // From 2026-03-02: R₀ = 7900 → −0.25 · (7290 − 7900) = 152.5 kPa, under the alarm level.
      const added = await t.api('POST', `/points/${pz}/calibrations`, {
        headers: h(),
        body: { method: 'vibrating_wire', gauge_factor: -0.25, zero_reading: 7900, valid_from: '2026-03-02T00:00:00Z' },
      });
      expect(added.status).toBe(200);
      expect(['pending', 'running', 'done']).toContain(added.body.data.recompute.status);
      const calibrationId = added.body.data.id as string;

      // The very next write converts with it.
      const next = await write([{ point_id: pz, measured_at: '2026-03-04T00:00:00Z', values: { frequency: 2700 } }]);
      expect(next.body.data.records[0].status).toBe('normal');

      // The recomputation runs in the background; its state is on the calibration.
      const deadline = Date.now() + 30_000;
      let state: { status: string; records: number; changed: number } = { status: 'pending', records: 0, changed: 0 };
      while (Date.now() < deadline) {
        const list = await t.api('GET', `/points/${pz}/calibrations`, { headers: h() });
        state = list.body.data.items.find((c: { id: string }) => c.id === calibrationId).recompute;
        if (state.status === 'done') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(state.status).toBe('done');
      // 03-02 06:00, 03-02 12:00 and 03-03 are from valid_from on (and 03-04 when the job ran
      // after that write); two of them changed: the one without a raw reading did not, nor the
      // one written after the calibration, converted with it already.
      expect(state.changed).toBe(2);
      expect([3, 4]).toContain(state.records);

      expect(await values(pz)).toEqual([
        { at: '2026-03-01T00:00:00Z', values: { frequency: 2700, pore_pressure: 177.5 }, status: 'alarm' },
        { at: '2026-03-02T06:00:00Z', values: { frequency: 2700, temperature: 12, pore_pressure: 152.5 }, status: 'normal' },
        { at: '2026-03-02T12:00:00Z', values: { pore_pressure: 10 }, status: 'normal' },
        { at: '2026-03-03T00:00:00Z', values: { frequency: 2700, pore_pressure: 152.5 }, status: 'normal' },
        { at: '2026-03-04T00:00:00Z', values: { frequency: 2700, pore_pressure: 152.5 }, status: 'normal' },
      ]);
      const after = await queryTestDatabase<{ id: string; version: number }>(
        t.db.url,
        'SELECT id, version FROM monitoring_data.data_records WHERE point_id = $1 AND measured_at < $2 ORDER BY measured_at',
        [pz, '2026-03-04T00:00:00Z'],
      );
      // the record before valid_from and the measured-only one untouched; the two recomputed ones at version 2
      expect(after.map((r) => r.version)).toEqual([before[0]!.version, before[1]!.version + 1, before[2]!.version, before[3]!.version + 1]);
      const job = await queryTestDatabase<{ created_by: string }>(t.db.url, 'SELECT created_by FROM monitoring_data.recompute_jobs WHERE id = $1', [
        calibrationId,
      ]);
      expect(job[0]!.created_by).toBe(added.body.data.created_by);
    });
  });

  describe('refusals of calibrations', () => {
    let pz: string;
    beforeAll(async () => {
      pz = await point({ number: 'PZ-V', name: 'Validation', sensor_type: 'piezometer' });
    });

    it('refuses bad coefficients, methods, dates and types with the envelope, and stores nothing', async () => {
      const post = (body: unknown, id = pz) => t.api('POST', `/points/${id}/calibrations`, { headers: h(), body });
      const at = '2026-03-01T00:00:00Z';
      expectError(await post({ method: 'vibrating_wire', zero_reading: 8000, valid_from: at }), 422101, 'gauge_factor');
      expectError(await post({ method: 'vibrating_wire', gauge_factor: -0.2, zero_reading: 8000 }), 422101, 'valid_from');
      expectError(await post({ method: 'vibrating_wire', gauge_factor: -0.2, zero_reading: 8000, valid_from: '2026-03-01' }), 400004, 'valid_from');
      expectError(
        await post({ method: 'vibrating_wire', gauge_factor: -0.2, zero_reading: 8000, temperature_factor: 0.1, valid_from: at }),
        422101,
        'zero_temperature',
      );
      expectError(await post({ method: 'linear', factor: 1, offset: 0, gauge_factor: 2, valid_from: at }), 422204, 'gauge_factor');
      expectError(await post({ method: 'cubic', a: 1, valid_from: at }), 422103, 'method');
      expectError(await post({ method: 'linear', factor: '2', offset: 0, valid_from: at }), 422102, 'factor');
      const thermometer = await point({ number: 'TH-1', name: 'Thermometer', sensor_type: 'thermometer' });
      expectError(await post({ method: 'linear', factor: 1, offset: 0, valid_from: at }, thermometer), 422204, 'point_id');
      const rain = await point({ number: 'RG-V', name: 'Rain', sensor_type: 'rain_gauge' });
      expectError(await post({ method: 'vibrating_wire', gauge_factor: 1, zero_reading: 0, valid_from: at }, rain), 422103, 'method');
      const atCreation = await t.api('POST', `/projects/${projectId}/points`, {
        headers: h(),
        body: { number: 'WL-1', name: 'Water level', sensor_type: 'water_level_gauge', calibration: { method: 'linear', factor: 1, offset: 0 } },
      });
      expectError(atCreation, 422204, 'calibration');
      expect((await t.api('GET', `/projects/${projectId}/points?q=Water`, { headers: h() })).body.data.items).toHaveLength(0);
      // one valid, then the same valid_from again
      expect((await post({ method: 'linear', factor: 1, offset: 0, valid_from: at })).status).toBe(200);
      expectError(await post({ method: 'linear', factor: 2, offset: 0, valid_from: '2026-03-01T08:00:00+08:00' }), 422204, 'valid_from');
      const list = await t.api('GET', `/points/${pz}/calibrations`, { headers: h() });
      expect(list.body.data.items).toHaveLength(1);
      expect(list.body.data.items[0]).toMatchObject({ method: 'linear', factor: 1, offset: 0 });
    });

    it('refuses to change the sensor type of a calibrated point, which keeps its type and calibrations', async () => {
      const pz = await point({
        number: 'PZ-T',
        name: 'Typed',
        sensor_type: 'piezometer',
        calibration: { method: 'vibrating_wire', gauge_factor: -0.25, zero_reading: 8000 },
      });
      const before = (await t.api('GET', `/points/${pz}`, { headers: h() })).body.data;
      // A strain gauge converts the same frequency channel: the kPa coefficients would give µε.
      expectError(await t.api('PATCH', `/points/${pz}`, { headers: h(), body: { sensor_type: 'strain_gauge' } }), 422204, 'sensor_type');
      expect((await t.api('GET', `/points/${pz}`, { headers: h() })).body.data).toEqual(before);
      expect((await t.api('GET', `/points/${pz}/calibrations`, { headers: h() })).body.data.items).toHaveLength(1);
      // Without calibrations the type still changes.
      const plain = await point({ number: 'PZ-U', name: 'Untyped', sensor_type: 'piezometer' });
      const changed = await t.api('PATCH', `/points/${plain}`, { headers: h(), body: { sensor_type: 'strain_gauge' } });
      expect(changed.status).toBe(200);
      expect(changed.body.data.sensor_type).toBe('strain_gauge');
    });

    it('honours Idempotency-Key: the same request again answers the same calibration and adds none', async () => {
      const pt = await point({ number: 'PZ-K', name: 'Keyed', sensor_type: 'piezometer' });
      const send = () =>
        t.api('POST', `/points/${pt}/calibrations`, {
          headers: { ...h(), 'idempotency-key': 'cal-once-1' },
          body: { method: 'linear', factor: 2, offset: 1, valid_from: '2026-05-01T00:00:00Z' },
        });
      const first = await send();
      const again = await send();
      expect(first.status).toBe(200);
      expect(again.body.data.id).toBe(first.body.data.id);
      expect((await t.api('GET', `/points/${pt}/calibrations`, { headers: h() })).body.data.items).toHaveLength(1);
    });

    it('needs project:write to add and a read permission to list', async () => {
      const reader = await t.apiKey(['project:read']);
      expectError(
        await t.api('POST', `/points/${pz}/calibrations`, {
          headers: h(reader),
          body: { method: 'linear', factor: 1, offset: 0, valid_from: '2026-04-01T00:00:00Z' },
        }),
        401004,
      );
      expect((await t.api('GET', `/points/${pz}/calibrations`, { headers: h(reader) })).status).toBe(200);
      expect((await t.api('GET', `/points/${pz}/calibrations`, { headers: h() })).body.data.items).toHaveLength(1);
    });
  });

  describe('derived channels', () => {
    it('computes derived channels after the conversion, chained, and a trigger level on one sets the status', async () => {
      // 177.5 kPa → head = 177.5 / 9.81 = 18.094… m → elevation = 100 + head = 118.094… m (over 115: warning)
      const pz = await point({
        number: 'PZ-D',
        name: 'Derived',
        sensor_type: 'piezometer',
        calibration: { method: 'vibrating_wire', gauge_factor: -0.25, zero_reading: 8000 },
        derived_channels: [
          { name: 'head', unit: 'm', expression: 'pore_pressure / 9.81' },
          { name: 'elevation', unit: 'm', expression: '100 + head' },
          { name: 'temperature_rise', unit: '°C', expression: 'max(temperature - 20, 0) ^ 2 + abs(-sqrt(4))' },
          { name: 'ratio', unit: '1', expression: 'pore_pressure / (temperature - temperature)' },
        ],
        trigger_levels: [{ level: 'warning', channel: 'elevation', above: 115 }],
      });
      const got = await t.api('GET', `/points/${pz}`, { headers: h() });
      expect(got.body.data.derived_channels).toEqual([
        { name: 'head', unit: 'm', expression: 'pore_pressure / 9.81' },
        { name: 'elevation', unit: 'm', expression: '100 + head' },
        { name: 'temperature_rise', unit: '°C', expression: 'max(temperature - 20, 0) ^ 2 + abs(-sqrt(4))' },
        { name: 'ratio', unit: '1', expression: 'pore_pressure / (temperature - temperature)' },
      ]);
      const res = await write([
        { point_id: pz, measured_at: '2026-03-01T00:00:00Z', values: { frequency: 2700, temperature: 23 } },
        // 2900 Hz → 8410 digits → −0.25 · 410 = −102.5 kPa → head −10.449 m, elevation 89.551 m: normal
        { point_id: pz, measured_at: '2026-03-01T01:00:00Z', values: { frequency: 2900 } },
      ]);
      expect(res.status).toBe(200);
      expect(res.body.data.records.map((r: { status: string }) => r.status)).toEqual(['warning', 'normal']);
      const [a, b] = await values(pz);
      expect(a.values.head).toBeCloseTo(177.5 / 9.81, 9);
      expect(a.values.elevation).toBeCloseTo(100 + 177.5 / 9.81, 9);
      // (23 − 20)² + |−√4| = 9 + 2 = 11
      expect(a.values.temperature_rise).toBe(11);
      // ÷ 0 → absent, never NaN
      expect(a.values).not.toHaveProperty('ratio');
      // no temperature: temperature_rise and ratio absent
      expect(Object.keys(b.values).sort()).toEqual(['elevation', 'frequency', 'head', 'pore_pressure']);
      expect(b.values.elevation).toBeCloseTo(100 - 102.5 / 9.81, 9);
      const alarms = await t.api('GET', `/projects/${projectId}/alarms?point_id=${pz}`, { headers: h() });
      expect(alarms.body.data.items[0]).toMatchObject({ level: 'warning', channel: 'elevation' });
      // A derived channel's series and latest value carry the unit the point gives it.
      const series = await t.api('GET', `/points/${pz}/series?channel=elevation&from=2026-03-01T00:00:00Z&to=2026-03-02T00:00:00Z&interval_seconds=86400`, {
        headers: h(),
      });
      expect(series.status).toBe(200);
      expect(series.body.data).toMatchObject({ channel: 'elevation', unit: 'm' });
      expect(series.body.data.buckets).toEqual([
        {
          start: '2026-03-01T00:00:00.000Z',
          count: 2,
          min: expect.closeTo(100 - 102.5 / 9.81, 6),
          avg: expect.any(Number),
          max: expect.closeTo(100 + 177.5 / 9.81, 6),
        },
      ]);
      const latest = (await t.api('GET', `/projects/${projectId}/data/latest?point_id=${pz}`, { headers: h() })).body.data.items;
      expect(latest.find((r: { point_id: string }) => r.point_id === pz).units).toMatchObject({ pore_pressure: 'kPa', head: 'm', elevation: 'm' });
      // a reading may not send a derived channel itself
      expectError(
        await write([{ point_id: pz, measured_at: '2026-03-01T02:00:00Z', values: { pore_pressure: 1, head: 3 } }]),
        422101,
        'records[0].values.head',
      );
    });

    it('recomputes the stored readings after a change of derived channels, visibly, and clears the alarm they no longer justify', async () => {
      // 100 kPa → head = 100 / 9.81 = 10.19 m: over the alarm level of 10 m
      const pz = await point({
        number: 'PZ-DR',
        name: 'Recomputed',
        sensor_type: 'piezometer',
        derived_channels: [{ name: 'head', unit: 'm', expression: 'pore_pressure / 9.81' }],
        trigger_levels: [{ level: 'alarm', channel: 'head', above: 10 }],
      });
      const res = await write([1, 2, 3].map((d) => ({ point_id: pz, measured_at: `2026-03-0${d}T00:00:00Z`, values: { pore_pressure: 100 } })));
      expect(res.body.data.records.map((r: { status: string }) => r.status)).toEqual(['alarm', 'alarm', 'alarm']);
      const alarmsOf = async () => (await t.api('GET', `/projects/${projectId}/alarms?point_id=${pz}`, { headers: h() })).body.data.items;
      const [opened] = await alarmsOf();
      expect(opened).toMatchObject({ level: 'alarm', channel: 'head' });

      // head in metres above a tip 2 m lower, read as a pressure head in cm: 100 / 9.81 / 100 = 0.1 m
      const patched = await t.api('PATCH', `/points/${pz}`, {
        headers: h(),
        body: { derived_channels: [{ name: 'head', unit: 'm', expression: 'pore_pressure / 981' }] },
      });
      expect(patched.status).toBe(200);
      const list = async () => (await t.api('GET', `/points/${pz}/recomputations`, { headers: h() })).body.data.items;
      const [job] = await list();
      expect(job).toMatchObject({ point_id: pz, cause: 'derived_channels', calibration_id: null, from: '1970-01-01T00:00:00.000Z' });
      expect(typeof job.requested_by).toBe('string');
      const deadline = Date.now() + 30_000;
      let state = job;
      while (state.status !== 'done' && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        [state] = await list();
      }
      expect(state).toMatchObject({ status: 'done', records: 3, changed: 3 });
      expect((await values(pz)).map((r: { values: { head: number }; status: string }) => [r.values.head.toFixed(6), r.status])).toEqual(
        Array(3).fill([(100 / 981).toFixed(6), 'normal']),
      );
      // the alarm the old values opened in the span is no longer justified: cleared, by the readings
      const after = await alarmsOf();
      expect(after).toHaveLength(1);
      expect(after[0]).toMatchObject({ alarm_id: opened.alarm_id, status: 'cleared' });
      // reading a point's recomputations needs project:read
      expectError(await t.api('GET', `/points/${pz}/recomputations`, { headers: h(await t.apiKey(['data:write'])) }), 401004);
      expect((await t.api('GET', `/points/${pz}/recomputations`, { headers: h(await t.apiKey(['project:read'])) })).body.data.items).toHaveLength(1);
    });

    it("refuses a point's recomputations and calibrations to a user who is not a member of its project (403001), naming nothing of them", async () => {
      const pz = await point({ number: 'PZ-O', name: 'Outsider', sensor_type: 'piezometer' });
      expect(
        (await t.api('PATCH', `/points/${pz}`, { headers: h(), body: { derived_channels: [{ name: 'head', unit: 'm', expression: 'pore_pressure / 10' }] } }))
          .status,
      ).toBe(200);
      const username = 'recompute.outsider';
      await t.api('POST', '/users', {
        headers: { authorization: `Bearer ${await t.login()}` },
        body: { username, password: `${username} password`, name: username, permissions: ['project:read', 'data:read'] },
      });
      const login = await t.api('POST', '/auth/login', { body: { username, password: `${username} password`, grant_type: 'password' } });
      const outsider = { authorization: `Bearer ${login.body.data.access_token}` };
      for (const path of [`/points/${pz}/recomputations`, `/points/${pz}/calibrations`]) {
        const res = await t.api('GET', path, { headers: outsider });
        expectError(res, 403001, 'project_id');
        expect(res.text).not.toContain('derived_channels');
      }
    });

    it('changes derived channels with PATCH, and refuses malicious, oversized and wrong expressions without effect', async () => {
      const pz = await point({ number: 'PZ-E', name: 'Expressions', sensor_type: 'piezometer' });
      const patch = (derived: unknown, extra: Record<string, unknown> = {}) =>
        t.api('PATCH', `/points/${pz}`, { headers: h(), body: { derived_channels: derived, ...extra } });
      const bad = async (expression: string, code: number) =>
        expectError(
          await patch([{ name: 'x1', unit: 'm', expression }]),
          code,
          code === 400003 ? 'derived_channels[0].expression' : 'derived_channels[0].expression',
        );
      await bad('process.exit(1)', 422103);
      await bad('constructor', 422103);
      await bad("require('fs')", 422103);
      await bad('eval("1")', 422103);
      await bad('pore_pressure > 1 ? 1 : 0', 422103);
      await bad('pore_pressure % 2', 422103);
      await bad('[1, 2]', 422103);
      await bad('this', 422103);
      await bad('sqrt(1, 2)', 422103);
      await bad('(1 + ', 422103);
      await bad('', 422103);
      await bad('unknown_channel * 2', 422103);
      // 59 additions: 117 nodes, within 500 characters but over the 100-node bound
      await bad(Array(60).fill('1').join('+'), 422103);
      await bad('1+'.repeat(250) + '1', 400003);
      expectError(await patch([{ name: 'temperature', unit: '°C', expression: '1' }]), 422103, 'derived_channels[0].name');
      expectError(await patch([{ name: 'Head!', unit: 'm', expression: '1' }]), 422103, 'derived_channels[0].name');
      expectError(
        await patch([
          { name: 'a1', unit: 'm', expression: 'a2 + 1' },
          { name: 'a2', unit: 'm', expression: '1' },
        ]),
        422103,
        'derived_channels[0].expression',
      );
      expectError(await patch(Array.from({ length: 17 }, (_, i) => ({ name: `d${i}`, unit: 'm', expression: '1' }))), 400003, 'derived_channels');
      expectError(await patch([], { trigger_levels: [{ level: 'alarm', channel: 'head', above: 1 }] }), 422103, 'trigger_levels[0].channel');
      const prism = await t.api('POST', `/projects/${projectId}/points`, {
        headers: h(),
        body: {
          number: 'TS-D',
          name: 'Prism',
          sensor_type: 'total_station',
          reference: { x: 1, y: 2, z: 3 },
          thresholds: { warning: 10, alarm: 20 },
          derived_channels: [{ name: 'h', unit: 'mm', expression: 'sqrt(dx^2 + dy^2)' }],
        },
      });
      expectError(prism, 422204, 'derived_channels');
      const unchanged = await t.api('GET', `/points/${pz}`, { headers: h() });
      expect(unchanged.body.data).toMatchObject({ derived_channels: [], version: 1 });

      const ok = await patch([{ name: 'head', unit: 'm', expression: '-pore_pressure / -9.81' }], {
        trigger_levels: [{ level: 'alarm', channel: 'head', above: 10 }],
      });
      expect(ok.status).toBe(200);
      expect(ok.body.data.derived_channels).toEqual([{ name: 'head', unit: 'm', expression: '-pore_pressure / -9.81' }]);
      const res = await write([{ point_id: pz, measured_at: '2026-03-01T00:00:00Z', values: { pore_pressure: 196.2 } }]);
      expect(res.body.data.records[0].status).toBe('alarm');
      expect((await values(pz))[0].values).toEqual({ pore_pressure: 196.2, head: 20 });
    });
  });
});
