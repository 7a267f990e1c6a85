import { fail } from '../errors.js';
import type { TaskAccess } from './task-access.js';
import type { Identity } from './identity.js';

/**
 * The task routes a worker (a `worker:<type>` role) may call, and how each names the task it
 * acts on. Every route through which a worker takes, completes, logs or extends a task is here,
 * including those that name a task by id or by run and reference name, so a worker can only
 * ever touch tasks of its own types. Routes of the task group not listed need the task role.
 * A poll names the type in its path (checked before the route runs); every other route passes
 * the caller's `TaskAccess` to the service, which checks the task it resolved.
 */
export type TaskLocator = 'typeParam' | 'taskIdParam' | 'taskIdBody' | 'workflowRefParams';

export const WORKER_ROUTES: Readonly<Record<string, TaskLocator>> = {
  'GET /api/tasks/poll/:taskType': 'typeParam',
  'GET /api/tasks/poll/batch/:taskType': 'typeParam',
  'POST /api/tasks': 'taskIdBody',
  'POST /api/tasks/update-v2': 'taskIdBody',
  'POST /api/tasks/:workflowId/:ref/:status': 'workflowRefParams',
  'GET /api/tasks/:taskId': 'taskIdParam',
  'GET /api/tasks/:taskId/log': 'taskIdParam',
  'POST /api/tasks/:taskId/log': 'taskIdParam',
};

export function workerRouteOf(method: string, url: string | undefined): TaskLocator | undefined {
  return url === undefined ? undefined : WORKER_ROUTES[`${method} ${url}`];
}

export function mayWorkOn(identity: Identity, taskType: string): boolean {
  return identity.allWorkerTypes || identity.workerTypes.has(taskType);
}

/**
 * What a worker may act on: tasks of its own types. Checked by the service on the very record
 * it resolved and is about to read or change (`TaskAccess`), so a route naming a task by run
 * and reference name cannot check one task and change another.
 */
export function workerTaskAccess(identity: Identity, taskRole: string): TaskAccess {
  return {
    check(task) {
      if (mayWorkOn(identity, task.taskType)) return;
      throw fail('WORKER_ROLE_REQUIRED', { taskType: task.taskType, taskRole });
    },
  };
}
