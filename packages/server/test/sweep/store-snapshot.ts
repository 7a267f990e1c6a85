import assert from 'node:assert/strict';

import type { FastifyInstance } from 'fastify';

import { call } from '../helpers/app.js';

/** Fields of a read that change with the clock alone (explanations of waiting, liveness). */
const VOLATILE = new Set(['waitingFor', 'lastPollTime', 'activeWorkers', 'noActiveWorkerSince']);

function stable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stable);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      if (!VOLATILE.has(key)) out[key] = stable((value as Record<string, unknown>)[key]);
    }
    return out;
  }
  return value;
}

/**
 * What the store holds, read through the API: definitions, task definitions, every run with
 * its tasks and their logs, and the queue counts. Two snapshots are equal when nothing was changed.
 */
export async function storeSnapshot(app: FastifyInstance): Promise<string> {
  const get = async (url: string): Promise<unknown> => {
    const res = await call(app, 'GET', url);
    assert.equal(res.status, 200, `${url}: ${res.text.slice(0, 300)}`);
    return res.body;
  };
  const workflows = await get('/api/metadata/workflow');
  const taskDefs = await get('/api/metadata/taskdefs');
  const search = (await get('/api/workflow/search?size=5000&sort=createTime:ASC')) as {
    results: Array<{ workflowId: string }>;
  };
  const runs = [];
  const logs: Record<string, unknown> = {};
  for (const { workflowId } of search.results) {
    const run = (await get(`/api/workflow/${workflowId}?includeTasks=true`)) as {
      tasks?: Array<{ taskId: string }>;
    };
    runs.push(run);
    for (const { taskId } of run.tasks ?? []) {
      const res = await call(app, 'GET', `/api/tasks/${taskId}/log`);
      logs[taskId] = res.status === 204 ? [] : res.body;
    }
  }
  const queues = (await get('/api/tasks/queue/sizes')) as Record<string, Record<string, number>>;
  // A queue that only a poll made known, with nothing in it, is no change of state.
  const held = Object.fromEntries(
    Object.entries(queues).filter(
      ([, q]) => (q.waiting ?? 0) + (q.scheduled ?? 0) + (q.inFlight ?? 0) + (q.deadLettered ?? 0) > 0,
    ),
  );
  return JSON.stringify(stable({ workflows, taskDefs, runs, logs, queues: held }));
}
