import { z } from 'zod';
import { envPort, parseConfig } from '@mp/kit';
import { infraSchema } from '@mp/runtime';

export const projectsConfigSchema = infraSchema.extend({
  MP_PROJECTS_GRPC_PORT: envPort(50052),
  MP_GRPC_HOST: z.string().default('127.0.0.1'),
});

export type ProjectsConfig = z.infer<typeof projectsConfigSchema>;

export const parseProjectsConfig = (env: Record<string, string | undefined> = process.env) => parseConfig(projectsConfigSchema, env);
