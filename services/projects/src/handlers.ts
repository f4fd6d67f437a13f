import { projects } from '@mp/contracts';
import { bindService, type CallerPolicy } from '@mp/grpc';
import type { ProjectsDeps } from './deps.js';
import { addCalibration } from './use-cases/add-calibration.js';
import { addMember } from './use-cases/add-member.js';
import { assignTask } from './use-cases/assign-task.js';
import { changeProjectStatus } from './use-cases/change-project-status.js';
import { changeTaskStatus } from './use-cases/change-task-status.js';
import { createDevice } from './use-cases/create-device.js';
import { createPoint } from './use-cases/create-point.js';
import { createProject } from './use-cases/create-project.js';
import { createTask } from './use-cases/create-task.js';
import { deleteDevice } from './use-cases/delete-device.js';
import { deletePoint } from './use-cases/delete-point.js';
import { deleteProject } from './use-cases/delete-project.js';
import { deleteTask } from './use-cases/delete-task.js';
import { getDevice } from './use-cases/get-device.js';
import { getIngestContext } from './use-cases/get-ingest-context.js';
import { getPoint } from './use-cases/get-point.js';
import { getProjectAccess } from './use-cases/get-project-access.js';
import { getProject } from './use-cases/get-project.js';
import { getTask } from './use-cases/get-task.js';
import { listCalibrations } from './use-cases/list-calibrations.js';
import { listDevices } from './use-cases/list-devices.js';
import { listMembers } from './use-cases/list-members.js';
import { listPoints } from './use-cases/list-points.js';
import { listProjects } from './use-cases/list-projects.js';
import { listTasks } from './use-cases/list-tasks.js';
import { removeMember } from './use-cases/remove-member.js';
import { updateDevice } from './use-cases/update-device.js';
import { updatePoint } from './use-cases/update-point.js';
import { updateProject } from './use-cases/update-project.js';
import { updateTask } from './use-cases/update-task.js';
import { deleteSitePlan } from './use-cases/delete-site-plan.js';
import { getSitePlan } from './use-cases/get-site-plan.js';
import { placeOnSitePlan } from './use-cases/place-on-site-plan.js';
import { putSitePlan } from './use-cases/put-site-plan.js';

/**
 * The gateway calls every method; monitoring-data reads what a data write is checked against
 * and which projects a caller reads (the alarm inbox and alarm counts span projects);
 * reports reads a report's project and points as the person who asked for the report, and which
 * projects a caller reads (its reports follow that access).
 */
const CALLERS: CallerPolicy = {
  gateway: '*',
  'monitoring-data': ['getIngestContext', 'getPoint', 'getProjectAccess'],
  reports: ['getProject', 'listPoints', 'getProjectAccess'],
  // a notification rule's maker may read (and, to change it, write) its project (ADR 0090)
  webhooks: ['getProject', 'getProjectAccess'],
};

export function projectsBinding(deps: ProjectsDeps) {
  return bindService<projects.ProjectsServer>(
    'mp.projects.Projects',
    projects.ProjectsService,
    {
      createProject: (req, ctx) => createProject(deps, req, ctx),
      getProject: (req, ctx) => getProject(deps, req, ctx),
      listProjects: (req, ctx) => listProjects(deps, req, ctx),
      updateProject: (req, ctx) => updateProject(deps, req, ctx),
      deleteProject: (req, ctx) => deleteProject(deps, req, ctx),
      changeProjectStatus: (req, ctx) => changeProjectStatus(deps, req, ctx),
      getIngestContext: (req, ctx) => getIngestContext(deps, req, ctx),
      getProjectAccess: (req, ctx) => getProjectAccess(deps, req, ctx),
      listMembers: (req, ctx) => listMembers(deps, req, ctx),
      addMember: (req, ctx) => addMember(deps, req, ctx),
      removeMember: (req, ctx) => removeMember(deps, req, ctx),
      createTask: (req, ctx) => createTask(deps, req, ctx),
      getTask: (req, ctx) => getTask(deps, req, ctx),
      listTasks: (req, ctx) => listTasks(deps, req, ctx),
      updateTask: (req, ctx) => updateTask(deps, req, ctx),
      deleteTask: (req, ctx) => deleteTask(deps, req, ctx),
      changeTaskStatus: (req, ctx) => changeTaskStatus(deps, req, ctx),
      assignTask: (req, ctx) => assignTask(deps, req, ctx),
      createPoint: (req, ctx) => createPoint(deps, req, ctx),
      getPoint: (req, ctx) => getPoint(deps, req, ctx),
      listPoints: (req, ctx) => listPoints(deps, req, ctx),
      updatePoint: (req, ctx) => updatePoint(deps, req, ctx),
      deletePoint: (req, ctx) => deletePoint(deps, req, ctx),
      addCalibration: (req, ctx) => addCalibration(deps, req, ctx),
      listCalibrations: (req, ctx) => listCalibrations(deps, req, ctx),
      createDevice: (req, ctx) => createDevice(deps, req, ctx),
      getDevice: (req, ctx) => getDevice(deps, req, ctx),
      listDevices: (req, ctx) => listDevices(deps, req, ctx),
      updateDevice: (req, ctx) => updateDevice(deps, req, ctx),
      deleteDevice: (req, ctx) => deleteDevice(deps, req, ctx),
      putSitePlan: (req, ctx) => putSitePlan(deps, req, ctx),
      getSitePlan: (req, ctx) => getSitePlan(deps, req, ctx),
      placeOnSitePlan: (req, ctx) => placeOnSitePlan(deps, req, ctx),
      deleteSitePlan: (req, ctx) => deleteSitePlan(deps, req, ctx),
    },
    CALLERS,
  );
}
