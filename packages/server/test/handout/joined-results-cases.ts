import assert from 'node:assert/strict';
import { it } from 'node:test';

import type { FastifyInstance } from 'fastify';

import { call } from '../helpers/app.js';
import { register } from '../helpers/app-suite.js';
import { pollOneTask, startRun } from '../helpers/runs.js';

/**
 * What both stores answer when the results of one run's branches are decided together
 * (`operations/result-work.ts`): the workflow, the helpers and the cases that
 * update-v2-joined-results.test.ts (PostgreSQL's group commit) and
 * update-v2-joined-results-sqlite.test.ts (SQLite's join queue) share. Each file says how its
 * store is made to take the results together (`together`) and how it counts joined ones.
 */

type Answer = Awaited<ReturnType<typeof call>>;

export interface JoinedResultsStore {
  app(): FastifyInstance;
  /** Posts `bodies` as update-v2s that all reach the store together; answers in order. */
  together(bodies: ReadonlyArray<Record<string, unknown>>): Promise<Answer[]>;
  /** Transactions done in another one's joint function, since the store opened. */
  joined(): number;
}

/** A fork of three branches (a → a2, b, c), its join and a last step. */
export async function registerJoinedResultsWorkflow(app: FastifyInstance): Promise<void> {
  const step = (ref: string) => ({ name: 'jr_step', taskReferenceName: ref, type: 'SIMPLE' });
  await register(
    app,
    [
      {
        name: 'jr_fork',
        version: 1,
        ownerEmail: 'test@example.com',
        tasks: [
          {
            name: 'fork',
            taskReferenceName: 'fork',
            type: 'FORK_JOIN',
            forkTasks: [[step('a'), step('a2')], [step('b')], [step('c')]],
          },
          { name: 'join', taskReferenceName: 'join', type: 'JOIN', joinOn: ['a2', 'b', 'c'] },
          step('last'),
        ],
      },
    ],
    [{ name: 'jr_step', retryCount: 0, responseTimeoutSeconds: 60, ownerEmail: 'a@b.c' }],
  );
}

/** The helpers a case needs: a forked run, its tasks by ref, and its end. */
export function joinedResultsHelpers(app: () => FastifyInstance) {
  /** A run with its three branch heads handed out to w1 (a), w2 (b) and w3 (c). */
  async function forked() {
    const id = await startRun(app(), 'jr_fork', { input: {} });
    const tasks = [await pollOneTask(app(), 'jr_step', 'w1')];
    tasks.push(await pollOneTask(app(), 'jr_step', 'w2'), await pollOneTask(app(), 'jr_step', 'w3'));
    const byRef = new Map(
      tasks.map((task, i) => [task.referenceTaskName as string, { task, worker: `w${i + 1}` }]),
    );
    const result = (ref: string, extra: Record<string, unknown> = {}) => {
      const held = byRef.get(ref) ?? assert.fail(`no task ${ref} handed out`);
      return {
        taskId: held.task.taskId,
        workflowInstanceId: id,
        workerId: held.worker,
        status: 'COMPLETED',
        outputData: { from: ref },
        ...extra,
      };
    };
    const worker = (ref: string) => byRef.get(ref)?.worker ?? assert.fail(`no task ${ref}`);
    return { id, result, worker };
  }

  /** Ends the run from a2, held by `workerId`: its result hands over the last step, whose result ends the run. */
  async function finishFromA2(id: string, a2: string, workerId: string): Promise<void> {
    const post = (taskId: unknown) =>
      call(app(), 'POST', '/api/tasks/update-v2', {
        taskId,
        workflowInstanceId: id,
        workerId,
        status: 'COMPLETED',
      });
    const last = await post(a2);
    assert.equal(last.status, 200, last.text);
    assert.equal(last.body.referenceTaskName, 'last');
    const done = await post(last.body.taskId);
    assert.equal(done.status, 204, done.text);
    const run = await call(app(), 'GET', `/api/workflow/${id}`);
    assert.equal(run.body.status, 'COMPLETED');
  }

  const tasksOf = async (id: string) => {
    const res = await call(app(), 'GET', `/api/workflow/${id}?includeTasks=true`);
    assert.equal(res.status, 200, res.text);
    return new Map<string, { status: string; workerId?: string; outputData: unknown }>(
      res.body.tasks.map((task: { referenceTaskName: string }) => [task.referenceTaskName, task]),
    );
  };

  return { forked, finishFromA2, tasksOf };
}

/** The cases both stores answer alike. */
export function joinedResultsCases(store: JoinedResultsStore): void {
  const { forked, finishFromA2, tasksOf } = joinedResultsHelpers(() => store.app());

  it('the branches that end together are one decision, and each worker gets what it would alone', async () => {
    const { id, result, worker } = await forked();
    const joinedBefore = store.joined();
    const [a, b, c] = await store.together([result('a'), result('b'), result('c')]);
    assert.equal(store.joined() - joinedBefore, 2, 'three results, one decision');
    // a's branch goes on: its next step is handed to a's worker at once; b and c end their branches.
    assert.equal(a?.status, 200, a?.text);
    assert.equal(a?.body.referenceTaskName, 'a2');
    assert.equal(a?.body.workerId, worker('a'));
    assert.equal(b?.status, 204, b?.text);
    assert.equal(c?.status, 204, c?.text);
    const tasks = await tasksOf(id);
    for (const ref of ['a', 'b', 'c']) {
      assert.equal(tasks.get(ref)?.status, 'COMPLETED', ref);
      assert.deepEqual(tasks.get(ref)?.outputData, { from: ref }, ref);
    }
    assert.equal(tasks.get('a2')?.status, 'IN_PROGRESS');
    assert.equal(tasks.get('join')?.status, 'IN_PROGRESS');
    // The rest of the run as usual.
    await finishFromA2(id, a?.body.taskId as string, worker('a'));
  });

  it('a refused result among them answers 409 alone, and the others are applied', async () => {
    const { id, result } = await forked();
    const [a, b, c] = await store.together([
      result('a'),
      result('b', { workerId: 'not-its-worker' }),
      result('c'),
    ]);
    assert.equal(a?.status, 200, a?.text);
    assert.equal(b?.status, 409, b?.text);
    assert.equal(c?.status, 204, c?.text);
    const tasks = await tasksOf(id);
    assert.equal(tasks.get('a')?.status, 'COMPLETED');
    assert.equal(tasks.get('b')?.status, 'IN_PROGRESS', 'the refused result changed nothing');
    assert.equal(tasks.get('c')?.status, 'COMPLETED');
  });

  it('one task’s result twice goes each in turn: the first applied, the repeat acknowledged', async () => {
    const { id, result } = await forked();
    const joinedBefore = store.joined();
    const [first, again] = await store.together([result('b'), result('b')]);
    assert.equal(store.joined() - joinedBefore, 0, 'not decided together');
    assert.equal(first?.status, 204, first?.text);
    assert.equal(again?.status, 204, again?.text);
    const tasks = await tasksOf(id);
    assert.equal(tasks.get('b')?.status, 'COMPLETED');
  });
}
