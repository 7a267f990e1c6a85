import assert from 'node:assert/strict';

import type { FastifyInstance } from 'fastify';

import { call } from './app.js';

/** Run and worker calls the HTTP suites share; each asserts a 200 answer. */

/** Starts a run of `name` (the body as `POST /api/workflow/{name}` takes it) and answers its id. */
export async function startRun(
  app: FastifyInstance,
  name: string,
  body: Record<string, unknown> = {},
): Promise<string> {
  const res = await call(app, 'POST', `/api/workflow/${name}`, body);
  assert.equal(res.status, 200, res.text);
  return res.text;
}

/** The run with its tasks. */
export async function runOf(app: FastifyInstance, id: string): Promise<any> {
  const res = await call(app, 'GET', `/api/workflow/${id}`);
  assert.equal(res.status, 200, res.text);
  return res.body;
}

/** Takes up to `count` visible tasks of a type, without waiting. */
export async function pollTasks(
  app: FastifyInstance,
  type: string,
  count = 1,
  workerId = 'w',
): Promise<any[]> {
  const res = await call(
    app,
    'GET',
    `/api/tasks/poll/batch/${type}?count=${count}&timeout=0&workerid=${workerId}`,
  );
  assert.equal(res.status, 200, res.text);
  return res.body;
}

/** Takes exactly one task of a type. */
export async function pollOneTask(app: FastifyInstance, type: string, workerId = 'w'): Promise<any> {
  const tasks = await pollTasks(app, type, 1, workerId);
  assert.equal(tasks.length, 1, `expected one ${type} task`);
  return tasks[0];
}

/** Posts a worker's result for `task`; `extra` adds fields such as `outputData` or `logs`. */
export async function postResult(
  app: FastifyInstance,
  task: { taskId: string; workflowInstanceId: string },
  status: string,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const res = await call(app, 'POST', '/api/tasks', {
    taskId: task.taskId,
    workflowInstanceId: task.workflowInstanceId,
    status,
    ...extra,
  });
  assert.equal(res.status, 200, res.text);
}
