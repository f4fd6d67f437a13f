import type { projects } from '@mp/contracts';

/** A row of the points table, as every query of a point selects it (POINT_COLUMNS). */
export interface PointRow {
  id: string;
  project_id: string;
  tenant_id: string;
  environment: string;
  number: string;
  name: string;
  sensor_type: string;
  /** null for the types without coordinates (docs/instruments.md) */
  ref_x: number | null;
  ref_y: number | null;
  ref_z: number | null;
  warning_threshold: number;
  alarm_threshold: number;
  abrupt_change_limit: number | null;
  precision_mm: number | null;
  device_id: string | null;
  active: boolean;
  description: string | null;
  /** per-point alarm rules (alarm-rules.ts); null: the platform defaults */
  alarm_rules?: projects.AlarmRules | string | null;
  trigger_levels?: projects.TriggerLevel[] | string | null;
  derived_channels?: projects.DerivedChannel[] | string | null;
  created_at: string;
  updated_at: string;
  version: number;
}

export const POINT_COLUMNS =
  'id, project_id, tenant_id, environment, number, name, sensor_type, ref_x, ref_y, ref_z, warning_threshold, alarm_threshold, abrupt_change_limit, precision_mm, device_id, active, description, created_at, updated_at, version, alarm_rules, trigger_levels, derived_channels';
