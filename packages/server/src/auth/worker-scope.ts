import type { TaskRecord } from '@baton/protocol';

import type { Store } from '../store/store.js';
import type { Identity } from './identity.js';

/**
 * The task routes a worker (a `worker:<type>` role) may call, and where each finds the task it
 * acts on. Every route through which a worker takes, completes, logs or extends a task is here,
 * including those that name a task by id or by run and reference name, so a worker can only
 * ever touch tasks of its own types. Routes of the task group not listed need the task role.
 */
export type TaskLocator = 'typeParam' | 'taskIdParam' | 'taskIdBody' | 'workflowRefParams';

export const WORKER_ROUTES: Readonly<Record<string, TaskLocator>> = {
  'GET /api/tasks/poll/:taskType': 'typeParam',
  'GET /api/tasks/poll/batch/:taskType': 'typeParam',
  'POST /api/tasks': 'taskIdBody',
  'POST /api/tasks/update-v2': 'taskIdBody',
  'POST /api/tasks/:workflowId/:ref/:status': 'workflowRefParams',
  'POST /api/tasks/:workflowId/:ref/:status/sync': 'workflowRefParams',
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

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The run's task with this reference name (a loop's plain ref means its iterations), open ones first. */
function byRef(tasks: readonly TaskRecord[], ref: string): TaskRecord | undefined {
  const named = tasks.filter(
    (t) => t.referenceTaskName === ref || new RegExp(`^${escape(ref)}(__\\d+)+$`).test(t.referenceTaskName),
  );
  return named.find((t) => t.status === 'SCHEDULED' || t.status === 'IN_PROGRESS') ?? named.at(-1);
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The task type a worker route acts on, read after the body is validated. Undefined when the
 * task cannot be found: the route itself then answers (404, or nothing to update), and a
 * request that finds nothing changes nothing.
 */
export async function taskTypeOf(
  store: Store,
  locator: TaskLocator,
  params: unknown,
  body: unknown,
): Promise<string | undefined> {
  const p = (params ?? {}) as Record<string, unknown>;
  switch (locator) {
    case 'typeParam':
      return str(p.taskType);
    case 'taskIdParam': {
      const id = str(p.taskId);
      return id === undefined ? undefined : (await store.read((tx) => tx.getTask(id)))?.taskType;
    }
    case 'taskIdBody': {
      const id =
        body !== null && typeof body === 'object' ? str((body as Record<string, unknown>).taskId) : undefined;
      return id === undefined ? undefined : (await store.read((tx) => tx.getTask(id)))?.taskType;
    }
    case 'workflowRefParams': {
      const workflowId = str(p.workflowId);
      const ref = str(p.ref);
      if (workflowId === undefined || ref === undefined) return undefined;
      return byRef(await store.read((tx) => tx.getRunTasks(workflowId)), ref)?.taskType;
    }
  }
}
