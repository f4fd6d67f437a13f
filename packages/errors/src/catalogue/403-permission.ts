import type { ErrorEntry } from '../types.js';
import { apiKey, json } from './shared.js';

/** 403: the caller is authenticated but may not do this (category permission). */
export const permissionErrors: ErrorEntry[] = [
  {
    code: '403001',
    message: 'no access to project',
    category: 'permission',
    suggestion: 'Ask a project administrator to add you as a member of the project, or use a project you belong to.',
    commonCauses: [
      'The caller is not a member of the project',
      'The membership was removed after the project team changed',
      'The project id belongs to another team of the same tenant',
    ],
    solutions: [
      'List the projects you can access with GET /v3/projects',
      'Ask a project administrator to add you with POST /v3/projects/{project_id}/members',
      'Check that the project id in the request is the intended one',
    ],
    example: {
      request: {
        method: 'GET',
        path: '/v3/projects/prj_7c1v5n3z/data',
        headers: { Authorization: 'Bearer <ACCESS_TOKEN of a non-member>' },
      },
      correct: {
        method: 'POST',
        path: '/v3/projects/prj_7c1v5n3z/members',
        headers: { Authorization: 'Bearer <ACCESS_TOKEN of the project administrator>' },
        body: { user_id: 'usr_3j9k6p2a' },
        then: 'repeat GET /v3/projects/prj_7c1v5n3z/data as the new member',
      },
    },
  },
  {
    code: '403002',
    message: 'operation not permitted',
    category: 'permission',
    suggestion: 'Ask a project administrator for a project role with write access before changing this project.',
    commonCauses: [
      'The caller is a project member with a read-only role',
      'Write permission for the project was withdrawn',
      'A viewer account is used by an integration that writes data',
    ],
    solutions: [
      'Check your role in GET /v3/projects/{project_id}/members',
      'Ask a project administrator to grant a role with write access',
      'Perform the write with an account or key that has write access to the project',
    ],
    example: {
      request: {
        method: 'PATCH',
        path: '/v3/projects/prj_8f3k2m9q',
        headers: { Authorization: 'Bearer <ACCESS_TOKEN of a read-only member>' },
        body: { description: 'Settlement monitoring, phase 2' },
      },
      correct: {
        method: 'PATCH',
        path: '/v3/projects/prj_8f3k2m9q',
        headers: { Authorization: 'Bearer <ACCESS_TOKEN of a member with write access>' },
        body: { description: 'Settlement monitoring, phase 2' },
      },
    },
  },
  {
    code: '403003',
    message: 'data isolation restriction',
    category: 'permission',
    suggestion: "Access only resources of your own tenant; use the ids returned by your tenant's API calls.",
    commonCauses: [
      'The resource belongs to another tenant',
      'An id was copied from another organisation’s export or shared link',
      'An integration serving several tenants uses the wrong tenant’s credentials',
    ],
    solutions: [
      'List your own resources (e.g. GET /v3/projects) and use ids from that list',
      'Ask the owning tenant to share the data through an export instead of ids',
      'Check that the credentials and the ids belong to the same tenant',
    ],
    example: {
      request: {
        method: 'GET',
        path: '/v3/projects/prj_otherten01',
        headers: apiKey,
      },
      correct: {
        method: 'GET',
        path: '/v3/projects/prj_8f3k2m9q',
        headers: apiKey,
        note: 'a project of the caller’s own tenant',
      },
    },
  },
  {
    code: '403004',
    message: 'feature not licensed',
    category: 'permission',
    suggestion: 'Upgrade the tenant plan to include this feature, or use an endpoint your plan covers.',
    commonCauses: [
      'The subscription plan does not include the feature (e.g. report generation or batch imports)',
      'The plan was downgraded or a trial ended',
      'The feature is enabled in the sandbox but not in the live environment',
    ],
    solutions: [
      'Check the features of your plan with your tenant administrator',
      'Contact sales or support to upgrade the plan',
      'Use an alternative within your plan, e.g. synchronous POST /v3/projects/{project_id}/data instead of batches',
    ],
    example: {
      request: {
        method: 'POST',
        path: '/v3/projects/prj_8f3k2m9q/data/batches',
        headers: json,
        body: { records: '[… 20 000 records …]' },
      },
      correct: {
        method: 'POST',
        path: '/v3/projects/prj_8f3k2m9q/data',
        headers: json,
        body: {
          records: [
            {
              point_id: 'pt_4h7d1x9c',
              measured_at: '2024-05-01T08:30:00+08:00',
              values: { x: 3512345.123, y: 512345.678, z: 45.321 },
            },
          ],
        },
        note: 'or the same batch request after the plan was upgraded',
      },
    },
  },
];
