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

/** Where each reading of a chunk came from: its file line, and per field the file column. */
export interface ReadingSource {
  line: number;
  pointId: string;
  /** channel → file column */
  columns: Map<string, string>;
  timestampColumn: string;
}

const GEODETIC_KEYS = ['x', 'y', 'z', 'dx', 'dy', 'dz'] as const;
type GeodeticKey = (typeof GEODETIC_KEYS)[number];
const MISSING = new Set(['', 'NAN', 'NaN', 'nan', 'NA', 'null', 'NULL', '-INF', 'INF']);

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
  sources: ReadingSource[] = [];
  /** Readings refused while reading the file (a cell that is not a number, a bad time). */
  rejected = 0;
  errors: ImportError[] = [];

  get size(): number {
    return this.pointId.length;
  }

  add(pointId: string, measuredAt: string, geodetic: boolean, values: Map<string, number>, source: ReadingSource): void {
    this.pointId.push(pointId);
    this.measuredAt.push(measuredAt);
    this.channelOffset.push(this.channelIndex.length);
    for (const k of GEODETIC_KEYS) this.geo[k].push(geodetic && values.has(k) ? values.get(k)! : Number.NaN);
    for (const [name, v] of values) {
      if (geodetic && (GEODETIC_KEYS as readonly string[]).includes(name)) continue;
      let idx = this.channelIndexOf.get(name);
      if (idx === undefined) {
        idx = this.channelNames.length;
        this.channelNames.push(name);
        this.channelIndexOf.set(name, idx);
      }
      this.channelIndex.push(idx);
      this.channelValue.push(v);
    }
    this.sources.push(source);
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
  /** per point: [channel, file column, index in the row] */
  private plan: { pointId: string; geodetic: boolean; cells: { channel: string; column: string; at: number }[] }[] = [];
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
        return { pointId, geodetic: type ? isGeodetic(type) : cells.every((c) => (GEODETIC_KEYS as readonly string[]).includes(c.channel)), cells };
      });
    }
    return { header: true };
  }

  /** The readings of one data row, added to `out`. */
  readRow(cells: string[], line: number, out: ReadingBuffer): void {
    const tsCell = (cells[this.timestampAt] ?? '').trim();
    const wall = this.parseWall(tsCell);
    const at = wall ? this.zone.resolve(wall, this.lastMs) : ({ error: 'invalid' } as const);
    const withValue = this.plan.filter((p) => p.cells.some((c) => !MISSING.has((cells[c.at] ?? '').trim())));
    if ('error' in at) {
      if (withValue.length === 0) return;
      const message =
        at.error === 'nonexistent'
          ? `${tsCell} does not exist in ${this.profile.time_zone} (clocks went forward): the readings of this row are not stored.`
          : `${tsCell.slice(0, 40) || 'An empty cell'} is not a time in the format ${this.profile.timestamp_format ?? 'iso'}.`;
      out.errors.push({ row: line, column: this.profile.timestamp_column, code: '400004', message });
      out.rejected += withValue.length;
      return;
    }
    this.lastMs = at.ms;
    const measuredAt = isoWithOffset(at.ms, at.offset);
    for (const p of withValue) {
      const values = new Map<string, number>();
      const columns = new Map<string, string>();
      let bad: ImportError | null = null;
      for (const c of p.cells) {
        const raw = (cells[c.at] ?? '').trim();
        if (MISSING.has(raw)) continue;
        const text = this.decimalComma ? raw.replace(',', '.') : raw;
        const v = text === '' || !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text) ? Number.NaN : Number(text);
        if (!Number.isFinite(v)) {
          bad = {
            row: line,
            column: c.column,
            code: '400004',
            message: `${raw.slice(0, 40)} is not a number (point ${p.pointId}, channel ${c.channel}): this reading is not stored.`,
          };
          break;
        }
        values.set(c.channel, v);
        columns.set(c.channel, c.column);
      }
      if (bad) {
        out.errors.push(bad);
        out.rejected++;
        continue;
      }
      out.add(p.pointId, measuredAt, p.geodetic, values, { line, pointId: p.pointId, columns, timestampColumn: this.profile.timestamp_column });
    }
  }
}
