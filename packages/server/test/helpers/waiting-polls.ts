import type { FastifyInstance } from 'fastify';

import { call } from './app.js';
import { eventually } from './http-target.js';

/** A gauge or counter of `GET /metrics` (the sum of its series matching `labels`), 0 when absent. */
export async function metric(app: FastifyInstance, name: string, labels = ''): Promise<number> {
  const res = await call(app, 'GET', '/metrics');
  let sum = 0;
  for (const line of res.text.split('\n')) {
    if (!line.startsWith(`${name}${labels === '' ? '' : '{'}`) && !line.startsWith(`${name} `)) continue;
    if (labels !== '' && !line.includes(labels)) continue;
    sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/** How many tasks of `type` this node has handed to waiting polls so far. */
export function handedToWaiting(app: FastifyInstance, type: string): Promise<number> {
  return metric(app, 'baton_tasks_handed_to_waiting_polls_total', type);
}

/** Resolves once `n` long polls wait on the node (its `baton_polls_waiting` gauge). */
export function parked(app: FastifyInstance, n: number): Promise<true> {
  return eventually(
    async () => ((await metric(app, 'baton_polls_waiting')) === n ? true : undefined),
    `${n} waiting polls`,
    10_000,
  );
}

/** A long poll of `type` for up to `count` tasks, waiting up to 5 s (the most a poll may). */
export function longPoll(app: FastifyInstance, type: string, count: number, workerId: string) {
  return call(app, 'GET', `/api/tasks/poll/batch/${type}?count=${count}&timeout=5000&workerid=${workerId}`);
}

/** A poll's tasks as [run, reference name, worker, status] rows, for one `deepEqual`. */
export function handedRows(tasks: ReadonlyArray<Record<string, unknown>>): unknown[][] {
  return tasks.map((x) => [x.workflowInstanceId, x.referenceTaskName, x.workerId, x.status]);
}
