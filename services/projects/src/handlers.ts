import { projects } from '@mp/contracts';
import { bindService } from '@mp/grpc';
import type { ProjectsDeps } from './deps.js';
import { createProject } from './use-cases/create-project.js';
import { getProject } from './use-cases/get-project.js';
import { listProjects } from './use-cases/list-projects.js';

export function projectsBinding(deps: ProjectsDeps) {
  return bindService<projects.ProjectsServer>('mp.projects.Projects', projects.ProjectsService, {
    createProject: (req, ctx) => createProject(deps, req, ctx),
    getProject: (req, ctx) => getProject(deps, req, ctx),
    listProjects: (req, ctx) => listProjects(deps, req, ctx),
  });
}
