import { z } from 'zod';
import { envPort, parseConfig } from '@mp/kit';
import { infraSchema } from '@mp/runtime';

export const projectsConfigSchema = infraSchema.extend({
  MP_PROJECTS_GRPC_PORT: envPort(50052),
  MP_GRPC_HOST: z.string().default('127.0.0.1'),
  /** monitoring-data, told a project's new ingest version before a change of it commits (ADR 0022). */
  MP_MONITORING_DATA_ADDR: z.string().default('127.0.0.1:50053'),
  // How often each replica looks for tasks past their deadline (task.overdue); 0 turns it off.
  MP_TASK_OVERDUE_SWEEP_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
});

export type ProjectsConfig = z.infer<typeof projectsConfigSchema>;

export const parseProjectsConfig = (env: Record<string, string | undefined> = process.env) => parseConfig(projectsConfigSchema, env);
