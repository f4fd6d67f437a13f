import { READ_PERMISSIONS, SENSOR_TYPE_SPECS, type SensorTypeSpec } from '@mp/contracts';
import * as api from '../api/resources.js';
import type { Route } from '../api/route-spec.js';
import { ok } from '../envelope.js';

/** A sensor type as the API shows it (docs/instruments.md). */
export const presentSensorType = (s: SensorTypeSpec) => ({
  id: s.id,
  name: s.name,
  geodetic: s.geodetic,
  primary_channel: s.primary,
  channels: s.channels.map((c) => ({
    name: c.name,
    unit: c.unit,
    quantity: c.quantity,
    kind: c.kind,
    primary: c.name === s.primary,
    range: c.range ? { min: c.range[0], max: c.range[1] } : null,
    converted_from: c.from ?? null,
  })),
});

// The catalogue is fixed per release: built once.
const LIST = { items: SENSOR_TYPE_SPECS.map(presentSensorType), next_cursor: null, has_more: false };

/** GET /sensor-types: every reader needs the words (the console, integrators writing values). */
export const sensorTypeRoutes: readonly Route[] = [
  {
    spec: {
      method: 'get',
      path: '/sensor-types',
      summary: 'The sensor types, each with its channels, units, plausible ranges and primary channel.',
      tag: 'Points',
      auth: 'api_key_or_bearer',
      anyPermission: READ_PERMISSIONS,
      rateLimit: 'tenant',
      response: api.listOf(api.sensorType),
    },
    handler: (ctx) => ok(ctx, LIST),
  },
];
