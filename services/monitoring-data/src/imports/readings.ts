import type { ImportFormat } from '@mp/contracts';
import { isGeodetic } from '@mp/contracts';
import type { monitoringData } from '@mp/contracts';
import type { ProfileColumn } from './profiles.js';
import { isoWithOffset, wallTimeParser, ZoneClock, type WallTime } from './timestamps.js';

/** An error of the file, as GET /data/imports/{id} lists it. */
export interface ImportError {
  row: number;
  column: string | null;
  code: string;
  message: string;
}

/** What the worker needs of a profile (as stored with the import). */
export interface ImportProfileSnapshot {
  format: ImportFormat;
  timestamp_column: string;
  timestamp_format: string | null;
  time_zone: string;
  delimiter: string | null;
  decimal: string | null;
  columns: (ProfileColumn & { sensor_type?: string })[];
}

/** Where a point's readings came from: per field the file column (one per point of the profile, shared by its readings). */
export interface ReadingSource {
  pointId: string;
  /** channel → file column */
  columns: Map<string, string>;
  timestampColumn: string;
}

const GEODETIC_KEYS = ['x', 'y', 'z', 'dx', 'dy', 'dz'] as const;
type GeodeticKey = (typeof GEODETIC_KEYS)[number];
const MISSING = new Set(['', 'NAN', 'NaN', 'nan', 'NA', 'null', 'NULL', '-INF', 'INF']);
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** One mapped cell of a point: its channel, file column, index in the row, and its geodetic field when it is one. */
interface PlanCell {
  channel: string;
  column: string;
  at: number;
  geo: GeodeticKey | null;
}

interface PointPlan {
  pointId: string;
  cells: PlanCell[];
  source: ReadingSource;
}

/** Readings of many rows in the write path's columns (RecordColumns), with where each came from. */
export class ReadingBuffer {
  pointId: string[] = [];
  measuredAt: string[] = [];
  geo: Record<GeodeticKey, number[]> = { x: [], y: [], z: [], dx: [], dy: [], dz: [] };
  channelNames: string[] = [];
  private channelIndexOf = new Map<string, number>();
  channelOffset: number[] = [];
  channelIndex: number[] = [];
  channelValue: number[] = [];
  /** per reading: its file line, and its point's columns */
  lines: number[] = [];
  sources: ReadingSource[] = [];
  /** Readings refused while reading the file (a cell that is not a number, a bad time). */
  rejected = 0;
  errors: ImportError[] = [];

  get size(): number {
    return this.pointId.length;
  }

  /** One reading: the first `n` of `cells` have the values `values` (arrays reused by the reader, copied here). */
  add(point: PointPlan, measuredAt: string, line: number, cells: PlanCell[], values: number[], n: number): void {
    const at = this.pointId.length;
    this.pointId.push(point.pointId);
    this.measuredAt.push(measuredAt);
    this.channelOffset.push(this.channelIndex.length);
    for (const k of GEODETIC_KEYS) this.geo[k].push(Number.NaN);
    for (let i = 0; i < n; i++) {
      const cell = cells[i]!;
      if (cell.geo) {
        this.geo[cell.geo][at] = values[i]!;
        continue;
      }
      let idx = this.channelIndexOf.get(cell.channel);
      if (idx === undefined) {
        idx = this.channelNames.length;
        this.channelNames.push(cell.channel);
        this.channelIndexOf.set(cell.channel, idx);
      }
      this.channelIndex.push(idx);
      this.channelValue.push(values[i]!);
    }
    this.lines.push(line);
    this.sources.push(point.source);
  }

  columns(): monitoringData.RecordColumns {
    const anyChannel = this.channelIndex.length > 0;
    return {
      pointId: this.pointId,
      measuredAt: this.measuredAt,
      ...this.geo,
      precision: this.pointId.map(() => Number.NaN),
      pointIds: [],
      pointIndex: [],
      instants: [],
      instantIndex: [],
      channelNames: anyChannel ? this.channelNames : [],
      channelOffset: anyChannel ? [...this.channelOffset, this.channelIndex.length] : [],
      channelIndex: anyChannel ? this.channelIndex : [],
      channelValue: anyChannel ? this.channelValue : [],
    };
  }
}

/**
 * Turns file rows into readings with a profile: the header row names the columns, each later
 * row gives one reading per point that has a value in it (its mapped channels). A cell that is not
 * a number, or a time that cannot be read, refuses the readings it belongs to, with an error
 * naming the row and column; missing values (empty, NAN as loggers write it) are left out.
 */
export class RowReader {
  private header: Map<string, number> | null = null;
  private readonly parseWall: (cell: string) => WallTime | null;
  private readonly zone: ZoneClock;
  /** per point: its mapped cells */
  private plan: PointPlan[] = [];
  /** scratch of readRow: one reading's cells with a value and their values (reused row after row) */
  private readonly withValue: PlanCell[] = [];
  private readonly values: number[] = [];
  private timestampAt = -1;
  private readonly decimalComma: boolean;
  /** The header lines still to come (TOA5: environment, names, units, processing). */
  private headerLines: number;

  constructor(
    private readonly profile: ImportProfileSnapshot,
    /** The instant of the previous row (UTC ms): the daylight-saving rule of an ambiguous wall time. */
    public lastMs: number | null,
  ) {
    this.parseWall = wallTimeParser(profile.timestamp_format);
    this.zone = new ZoneClock(profile.time_zone);
    this.decimalComma = profile.decimal === ',';
    this.headerLines = profile.format === 'toa5' ? 4 : 1;
  }

  /** True while the row is part of the header (it is consumed); an error when the header lacks a column. */
  takeHeader(cells: string[], line: number): { header: true } | { header: false } | { error: ImportError } {
    if (this.headerLines === 0) return { header: false };
    const total = this.profile.format === 'toa5' ? 4 : 1;
    const n = total - this.headerLines;
    this.headerLines--;
    if (this.profile.format === 'toa5' && n === 0) {
      if (cells[0] !== 'TOA5')
        return { error: { row: line, column: null, code: '400002', message: 'The file does not start with a TOA5 header line ("TOA5", station, logger…).' } };
      return { header: true };
    }
    const isNames = this.profile.format === 'toa5' ? n === 1 : n === 0;
    if (isNames) {
      this.header = new Map(cells.map((c, i) => [c.trim(), i]));
      const ts = this.header.get(this.profile.timestamp_column);
      if (ts === undefined)
        return {
          error: { row: line, column: this.profile.timestamp_column, code: '422101', message: `The header has no column ${this.profile.timestamp_column}.` },
        };
      this.timestampAt = ts;
      const byPoint = new Map<string, { channel: string; column: string; at: number }[]>();
      for (const c of this.profile.columns) {
        const at = this.header.get(c.column);
        if (at === undefined) return { error: { row: line, column: c.column, code: '422101', message: `The header has no column ${c.column}.` } };
        if (!byPoint.has(c.point_id)) byPoint.set(c.point_id, []);
        byPoint.get(c.point_id)!.push({ channel: c.channel, column: c.column, at });
      }
      this.plan = [...byPoint].map(([pointId, cells]) => {
        const type = this.profile.columns.find((c) => c.point_id === pointId)?.sensor_type;
        const geodetic = type ? isGeodetic(type) : cells.every((c) => (GEODETIC_KEYS as readonly string[]).includes(c.channel));
        const geoKey = (channel: string) => (geodetic && (GEODETIC_KEYS as readonly string[]).includes(channel) ? (channel as GeodeticKey) : null);
        return {
          pointId,
          cells: cells.map((c) => ({ ...c, geo: geoKey(c.channel) })),
          source: { pointId, columns: new Map(cells.map((c) => [c.channel, c.column])), timestampColumn: this.profile.timestamp_column },
        };
      });
    }
    return { header: true };
  }

  /**
   * The instant of a row that an earlier worker already committed (it is not stored again): read
   * only for the daylight-saving rule of the rows after it, as readRow would have read it.
   */
  skipRow(cells: string[]): void {
    const wall = this.parseWall((cells[this.timestampAt] ?? '').trim());
    const at = wall ? this.zone.resolve(wall, this.lastMs) : null;
    if (at && !('error' in at)) this.lastMs = at.ms;
  }

  /** The readings of one data row, added to `out`. Runs for every row of a file: no allocation beyond the readings. */
  readRow(cells: string[], line: number, out: ReadingBuffer): void {
    const tsCell = (cells[this.timestampAt] ?? '').trim();
    const wall = this.parseWall(tsCell);
    const at = wall ? this.zone.resolve(wall, this.lastMs) : ({ error: 'invalid' } as const);
    if ('error' in at) {
      let withValue = 0;
      for (const p of this.plan) if (p.cells.some((c) => !MISSING.has((cells[c.at] ?? '').trim()))) withValue++;
      if (withValue === 0) return;
      const message =
        at.error === 'nonexistent'
          ? `${tsCell} does not exist in ${this.profile.time_zone} (clocks went forward): the readings of this row are not stored.`
          : `${tsCell.slice(0, 40) || 'An empty cell'} is not a time in the format ${this.profile.timestamp_format ?? 'iso'}.`;
      out.errors.push({ row: line, column: this.profile.timestamp_column, code: '400004', message });
      out.rejected += withValue;
      return;
    }
    this.lastMs = at.ms;
    let measuredAt: string | null = null;
    const { withValue, values } = this;
    for (const p of this.plan) {
      let n = 0;
      let bad: PlanCell | null = null;
      let badRaw = '';
      for (const c of p.cells) {
        const cell = cells[c.at];
        const raw = cell === undefined ? '' : cell.trim();
        if (MISSING.has(raw)) continue;
        const text = this.decimalComma ? raw.replace(',', '.') : raw;
        const v = NUMBER.test(text) ? Number(text) : Number.NaN;
        if (!Number.isFinite(v)) {
          bad = c;
          badRaw = raw;
          break;
        }
        withValue[n] = c;
        values[n] = v;
        n++;
      }
      if (bad) {
        out.errors.push({
          row: line,
          column: bad.column,
          code: '400004',
          message: `${badRaw.slice(0, 40)} is not a number (point ${p.pointId}, channel ${bad.channel}): this reading is not stored.`,
        });
        out.rejected++;
        continue;
      }
      if (n === 0) continue;
      measuredAt ??= isoWithOffset(at.ms, at.offset);
      out.add(p, measuredAt, line, withValue, values, n);
    }
  }
}
