import { sensorTypeSpec, type projects, type SensorTypeSpec } from '@mp/contracts';
import { DomainError, isDomainError } from '@mp/errors';
import type { CallerContext, PromiseClient } from '@mp/grpc';
import type { Clock } from '@mp/kit';
import type { IngestVersions } from './ingest-versions.js';
import { instrumentSettings, type InstrumentSettings } from './instrument-channels.js';

export interface PointInfo extends InstrumentSettings {
  id: string;
  projectId: string;
  name: string;
  sensorType: string;
  ref: { x: number; y: number; z: number };
  /** millimetres; 0 or less means not configured */
  warning: number;
  alarm: number;
  abruptLimit: number | null;
  precision: number | null;
  active: boolean;
  /** the point's own alarm rules, over the operator defaults (alarms/settings.ts) */
  alarmRules?: projects.AlarmRules;
  /** the type's channels (docs/instruments.md); undefined for a type this release does not know */
  type?: SensorTypeSpec;
  /** limits on its channels; a record's status is the highest crossed */
  triggerLevels: projects.TriggerLevel[];
}

export interface ProjectInfo {
  id: string;
  name: string;
  status: string;
  startDate: string | null;
}

export interface Bounds {
  minX: number;
  maxX: number;
  minY: number;
  maxY: number;
  minZ: number;
  maxZ: number;
}

export interface ProjectContext {
  project: ProjectInfo;
  bounds: Bounds | null;
  points: Map<string, PointInfo>;
  /** The project's ingest version this was read at (GetIngestContext); everything is at least as new. */
  version: number;
}

interface Entry extends ProjectContext {
  fetchedAt: number;
}

export type ProjectsClient = Pick<PromiseClient<projects.ProjectsServer>, 'getIngestContext' | 'getPoint' | 'getProjectAccess'>;

const MAX_ENTRIES = 10_000;
const MAX_POINT_PROJECTS = 200_000;

/**
 * What the projects service says about a project and its points (GetIngestContext), reused for
 * `ttlMs` so that a stream of writes does not ask once per request, let alone once per record.
 * Entries are per caller (the projects service checks membership) and per read/write access.
 * Unknown points are never cached: a point created a moment ago is found at once.
 *
 * Read-your-writes (ADR 0022): every change of a project, its points or its members bumps the
 * project's ingest version, and the projects service stores the new version in this service's
 * database before the change commits. Each use first reads that version (`IngestVersions`, one
 * primary-key lookup, no call to projects) and uses a cached entry only when it is at least that
 * new, so the first request after an answered change, on any replica, sees the change.
 */
export class IngestContexts {
  private readonly entries = new Map<string, Entry>();
  /** A point never moves to another project, so this mapping is kept without expiry. */
  private readonly projectOfPoint = new Map<string, string>();

  constructor(
    private readonly client: ProjectsClient,
    private readonly versions: Pick<IngestVersions, 'required'>,
    private readonly ttlMs: number,
    private readonly clock: Clock,
  ) {}

  async get(caller: CallerContext, projectId: string, pointIds: Iterable<string>, forWrite: boolean): Promise<ProjectContext> {
    const key = `${caller.tenantId}|${caller.environment}|${caller.principalType}:${caller.principalId}|${projectId}|${forWrite ? 'w' : 'r'}`;
    const now = this.clock.now().getTime();
    const wanted = [...new Set(pointIds)];
    const required = await this.versions.required(projectId);
    const cached = this.entries.get(key);
    if (cached && cached.version >= required && now - cached.fetchedAt < this.ttlMs) {
      const missing = wanted.filter((id) => !cached.points.has(id));
      if (missing.length === 0) return cached;
      const fresh = await this.fetch(caller, projectId, missing, forWrite);
      for (const [id, p] of fresh.points) cached.points.set(id, p);
      // The entry keeps its own (older or equal) version: its other points were read at that one.
      cached.project = fresh.project;
      cached.bounds = fresh.bounds;
      return cached;
    }
    const fresh = await this.fetch(caller, projectId, wanted, forWrite);
    const entry: Entry = { ...fresh, fetchedAt: now };
    // Older than required: a change of the project is being committed right now (its version is
    // handed over before its commit). This request may use what was read — the change has not
    // been answered yet — but the next one must ask again.
    if (fresh.version < required) this.entries.delete(key);
    else if (this.ttlMs > 0) {
      this.entries.delete(key);
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, entry);
    }
    return entry;
  }

  /** The project a point belongs to (404003 from the projects service when there is no such point). */
  async projectOf(caller: CallerContext, pointId: string): Promise<string> {
    const known = this.projectOfPoint.get(pointId);
    if (known) return known;
    const point = await this.client.getPoint({ id: pointId }, caller);
    this.remember(point.id, point.projectId);
    return point.projectId;
  }

  /**
   * The context of a point's own resources (its series, its data): the point's project, with the
   * point in it. A point whose project is gone is itself gone, so that answers 404003 naming the
   * point, as GET /points/{id} does, not the project's 404001.
   */
  async forPoint(caller: CallerContext, pointId: string): Promise<{ projectId: string; context: ProjectContext }> {
    const projectId = await this.projectOf(caller, pointId);
    try {
      return { projectId, context: await this.get(caller, projectId, [pointId], false) };
    } catch (err) {
      if (!(isDomainError(err) && err.code === '404001')) throw err;
      this.projectOfPoint.delete(pointId);
      throw new DomainError('404003', {
        field: 'point_id',
        detail: `Monitoring point ${pointId} does not exist.`,
        suggestion: 'Check the point id, or list points with GET /projects/{project_id}/points.',
      });
    }
  }

  private remember(pointId: string, projectId: string): void {
    if (this.projectOfPoint.size >= MAX_POINT_PROJECTS) this.projectOfPoint.clear();
    this.projectOfPoint.set(pointId, projectId);
  }

  private async fetch(caller: CallerContext, projectId: string, pointIds: string[], forWrite: boolean): Promise<ProjectContext> {
    const res = await this.client.getIngestContext({ projectId, pointIds, forWrite }, caller);
    if (!res.project) throw new DomainError('502001', { detail: 'The projects service answered without the project.' });
    const points = new Map<string, PointInfo>();
    for (const p of res.points) {
      // Only points of this project count; anything else is an unknown point for this write.
      if (p.projectId !== projectId) continue;
      points.set(p.id, {
        id: p.id,
        projectId: p.projectId,
        name: p.name,
        sensorType: p.sensorType,
        ref: { x: p.reference?.x ?? 0, y: p.reference?.y ?? 0, z: p.reference?.z ?? 0 },
        warning: p.warningThreshold,
        alarm: p.alarmThreshold,
        abruptLimit: p.abruptChangeLimit ?? null,
        precision: p.precision ?? null,
        active: p.active,
        ...(p.alarmRules ? { alarmRules: p.alarmRules } : {}),
        type: sensorTypeSpec(p.sensorType),
        triggerLevels: p.triggerLevels,
        ...instrumentSettings(sensorTypeSpec(p.sensorType), p),
      });
      this.remember(p.id, p.projectId);
    }
    const b = res.bounds;
    return {
      project: { id: res.project.id, name: res.project.name, status: res.project.status, startDate: res.project.startDate ?? null },
      bounds: b ? { minX: b.minX, maxX: b.maxX, minY: b.minY, maxY: b.maxY, minZ: b.minZ, maxZ: b.maxZ } : null,
      points,
      version: res.version,
    };
  }
}
