import type { projects } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import { checkNumber } from './validation.js';

/** A project's plausible coordinate range in metres, as stored (jsonb) and as the API shows it. */
export interface Bounds {
  min_x: number;
  max_x: number;
  min_y: number;
  max_y: number;
  min_z: number;
  max_z: number;
}

const AXES = ['x', 'y', 'z'] as const;

/** Every limit finite and each minimum below its maximum (422204 otherwise). */
export function checkBounds(b: projects.Bounds): Bounds {
  const out: Bounds = { min_x: b.minX, max_x: b.maxX, min_y: b.minY, max_y: b.maxY, min_z: b.minZ, max_z: b.maxZ };
  for (const [k, v] of Object.entries(out)) checkNumber(v, `bounds.${k}`);
  for (const a of AXES) {
    if (out[`min_${a}`] >= out[`max_${a}`]) {
      throw new DomainError('422204', {
        field: `bounds.max_${a}`,
        detail: `bounds.max_${a} (${out[`max_${a}`]}) must be greater than bounds.min_${a} (${out[`min_${a}`]}).`,
        suggestion: `Send bounds with min_${a} < max_${a}.`,
      });
    }
  }
  return out;
}

/** The first axis on which a point lies outside the bounds, or null when it is inside. */
export function outsideAxis(b: Bounds, p: { x: number; y: number; z: number }): 'x' | 'y' | 'z' | null {
  for (const a of AXES) if (p[a] < b[`min_${a}`] || p[a] > b[`max_${a}`]) return a;
  return null;
}

/** 422201 when a point's reference lies outside its project's bounds. */
export function assertInside(b: Bounds | null, p: { x: number; y: number; z: number }, fieldPrefix: string): void {
  if (!b) return;
  const axis = outsideAxis(b, p);
  if (axis) {
    throw new DomainError('422201', {
      field: `${fieldPrefix}.${axis}`,
      detail: `${fieldPrefix}.${axis} = ${p[axis]} lies outside the project's plausible range [${b[`min_${axis}`]}, ${b[`max_${axis}`]}] m.`,
      suggestion: "Check the coordinate system and units (metres), or widen the project's bounds with PATCH /projects/{project_id}.",
    });
  }
}
