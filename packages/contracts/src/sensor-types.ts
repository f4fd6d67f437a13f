// The instrument model as data (docs/instruments.md): each sensor type, the channels a
// reading of it holds, their units and plausible ranges, and which channel is primary. The gateway
// lists it (GET /v3/sensor-types), the services validate and convert readings with it, the console
// labels charts with it. Browser-safe: plain constants only (vocabulary.ts re-exports it).

/** Sensor kinds of a monitoring site (a point's sensor_type); the first eleven are the original ids. */
export const SENSOR_TYPES = [
  'total_station',
  'gnss',
  'level',
  'inclinometer',
  'tiltmeter',
  'settlement_gauge',
  'extensometer',
  'crack_meter',
  'piezometer',
  'strain_gauge',
  'water_level_gauge',
  'load_cell',
  'rain_gauge',
  'thermometer',
] as const;
export type SensorType = (typeof SENSOR_TYPES)[number];

/**
 * How a channel's value comes about: `measured` (sent by the instrument or logger in engineering
 * units, or converted from the raw channel by the point's calibration), `raw` (the instrument's
 * own signal, e.g. a vibrating wire's frequency, kept as sent) or `derived` (computed on the
 * platform: a point's derived_channels).
 */
export const CHANNEL_KINDS = ['measured', 'raw', 'derived'] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

export interface ChannelSpec {
  name: string;
  unit: string;
  /** What is measured, in words: displacement, pore pressure, temperature… */
  quantity: string;
  kind: ChannelKind;
  /**
   * The plausible range of a value, inclusive (a value outside is 422201). Null for coordinates:
   * their range is the project's bounds.
   */
  range: readonly [min: number, max: number] | null;
  /** The raw channel this channel is converted from by the point's calibration, when it can be. */
  from?: string;
}

export interface SensorTypeSpec {
  id: SensorType;
  name: string;
  /**
   * Geodetic types measure coordinates: they need reference coordinates and keep the
   * survey values x, y, z (m) and dx, dy, dz (mm) with the displacement thresholds.
   */
  geodetic: boolean;
  /** The channel charts and series show when none is named. */
  primary: string;
  channels: readonly ChannelSpec[];
}

// Ranges are what an instrument of the kind can physically report, wide enough for any site:
// a value outside is a wrong unit or a broken sensor, not the ground (422201).
const coordinate = (name: string): ChannelSpec => ({ name, unit: 'm', quantity: 'coordinate', kind: 'measured', range: null });
const displacement = (name: string, quantity = 'displacement'): ChannelSpec => ({
  name,
  unit: 'mm',
  quantity,
  kind: 'measured',
  range: [-100_000, 100_000],
});
const temperature: ChannelSpec = { name: 'temperature', unit: '°C', quantity: 'temperature', kind: 'measured', range: [-60, 150] };
/** A vibrating-wire gauge's resonant frequency, Hz (the raw channel its calibration converts). */
const frequency: ChannelSpec = { name: 'frequency', unit: 'Hz', quantity: 'frequency', kind: 'raw', range: [100, 10_000] };
const GEODETIC = [coordinate('x'), coordinate('y'), coordinate('z'), displacement('dx'), displacement('dy'), displacement('dz')];

export const SENSOR_TYPE_SPECS: readonly SensorTypeSpec[] = [
  { id: 'total_station', name: 'Total station (prism)', geodetic: true, primary: 'dz', channels: GEODETIC },
  { id: 'gnss', name: 'GNSS receiver', geodetic: true, primary: 'dz', channels: GEODETIC },
  { id: 'level', name: 'Levelling point', geodetic: true, primary: 'dz', channels: GEODETIC },
  {
    id: 'inclinometer',
    name: 'In-place inclinometer',
    geodetic: false,
    primary: 'displacement_a',
    channels: [
      { name: 'displacement_a', unit: 'mm', quantity: 'lateral displacement, A axis', kind: 'measured', range: [-2000, 2000] },
      { name: 'displacement_b', unit: 'mm', quantity: 'lateral displacement, B axis', kind: 'measured', range: [-2000, 2000] },
      temperature,
    ],
  },
  {
    id: 'tiltmeter',
    name: 'Tiltmeter',
    geodetic: false,
    primary: 'tilt_a',
    channels: [
      { name: 'tilt_a', unit: 'mm/m', quantity: 'tilt, A axis', kind: 'measured', range: [-500, 500] },
      { name: 'tilt_b', unit: 'mm/m', quantity: 'tilt, B axis', kind: 'measured', range: [-500, 500] },
      temperature,
    ],
  },
  {
    id: 'settlement_gauge',
    name: 'Settlement gauge',
    geodetic: false,
    primary: 'settlement',
    channels: [{ name: 'settlement', unit: 'mm', quantity: 'settlement', kind: 'measured', range: [-5000, 5000], from: 'frequency' }, frequency, temperature],
  },
  {
    id: 'extensometer',
    name: 'Extensometer',
    geodetic: false,
    primary: 'displacement',
    channels: [
      { name: 'displacement', unit: 'mm', quantity: 'displacement', kind: 'measured', range: [-5000, 5000], from: 'frequency' },
      frequency,
      temperature,
    ],
  },
  {
    id: 'crack_meter',
    name: 'Crack meter',
    geodetic: false,
    primary: 'crack_width',
    channels: [{ name: 'crack_width', unit: 'mm', quantity: 'crack width', kind: 'measured', range: [-1000, 1000], from: 'frequency' }, frequency, temperature],
  },
  {
    id: 'piezometer',
    name: 'Piezometer',
    geodetic: false,
    primary: 'pore_pressure',
    channels: [
      { name: 'pore_pressure', unit: 'kPa', quantity: 'pore water pressure', kind: 'measured', range: [-200, 20_000], from: 'frequency' },
      frequency,
      temperature,
    ],
  },
  {
    id: 'strain_gauge',
    name: 'Strain gauge',
    geodetic: false,
    primary: 'strain',
    channels: [{ name: 'strain', unit: 'µε', quantity: 'strain', kind: 'measured', range: [-20_000, 20_000], from: 'frequency' }, frequency, temperature],
  },
  {
    id: 'water_level_gauge',
    name: 'Water level gauge',
    geodetic: false,
    primary: 'water_level',
    channels: [{ name: 'water_level', unit: 'm', quantity: 'water level', kind: 'measured', range: [-1000, 10_000] }, temperature],
  },
  {
    id: 'load_cell',
    name: 'Load cell',
    geodetic: false,
    primary: 'load',
    channels: [{ name: 'load', unit: 'kN', quantity: 'load', kind: 'measured', range: [-100_000, 100_000], from: 'frequency' }, frequency, temperature],
  },
  {
    id: 'rain_gauge',
    name: 'Rain gauge (tipping bucket)',
    geodetic: false,
    primary: 'rainfall',
    channels: [
      { name: 'rainfall', unit: 'mm', quantity: 'rainfall since the previous reading', kind: 'measured', range: [0, 1000], from: 'tips' },
      { name: 'tips', unit: 'count', quantity: 'bucket tips since the previous reading', kind: 'raw', range: [0, 100_000] },
    ],
  },
  { id: 'thermometer', name: 'Thermometer', geodetic: false, primary: 'temperature', channels: [temperature] },
];

const BY_ID = new Map<string, SensorTypeSpec>(SENSOR_TYPE_SPECS.map((s) => [s.id, s]));

/** The spec of a sensor type (undefined for an unknown id). */
export const sensorTypeSpec = (id: string): SensorTypeSpec | undefined => BY_ID.get(id);

/** The types that measure coordinates: reference coordinates and displacement thresholds apply. */
export const isGeodetic = (id: string): boolean => BY_ID.get(id)?.geodetic === true;

/** A channel of a type (undefined when the type has none of that name). */
export const channelOf = (type: string, name: string): ChannelSpec | undefined => BY_ID.get(type)?.channels.find((c) => c.name === name);

/** Trigger levels of a point, lowest first: a record's status is the highest one crossed. */
export const TRIGGER_LEVELS = ['warning', 'alarm', 'action'] as const;
export type TriggerLevel = (typeof TRIGGER_LEVELS)[number];

/** A record's status: normal, or the highest trigger level it crossed. */
export const RECORD_STATUSES = ['normal', ...TRIGGER_LEVELS] as const;
export type RecordStatus = (typeof RECORD_STATUSES)[number];

/** Calibration methods (docs/instruments.md gives each one's formula). */
export const CALIBRATION_METHODS = ['linear', 'polynomial', 'vibrating_wire'] as const;
export type CalibrationMethod = (typeof CALIBRATION_METHODS)[number];
