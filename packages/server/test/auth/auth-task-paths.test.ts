import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { storeCases } from '../helpers/stores.js';
import { authSuite, BOOTSTRAP, send } from './auth-fixture.js';

/**
 * The role check is made on exactly the task a route changes: the service that resolves the
 * task checks the caller's access on that record, in the transaction that changes it. The
 * exploit: with refs `b__1` (type A) and `b` (type B) open in one run, a `worker:A` token
 * completing `b` by reference name must be refused, and `b` left as it was. Then every path
 * that reads or changes a task, by every role.
 */

const A = 'auth_type_a';
const B = 'auth_type_b';

type Method = 'GET' | 'POST' | 'PUT';
interface TaskPath {
  readonly name: string;
  /** The task group's worker routes a `worker:<type>` role may call (for its own types). */
  readonly workerRoute: boolean;
  readonly group: 'task' | 'workflow';
  readonly changes: boolean;
  request(run: string, taskId: string): { method: Method; url: string; body?: unknown };
}

const PATHS: TaskPath[] = [
  {
    name: 'complete by id (POST /api/tasks)',
    workerRoute: true,
    group: 'task',
    changes: true,
    request: (run, taskId) => ({
      method: 'POST',
      url: '/api/tasks',
      body: { taskId, workflowInstanceId: run, status: 'COMPLETED', outputData: { by: 'x' } },
    }),
  },
  {
    name: 'fail by id (POST /api/tasks)',
    workerRoute: true,
    group: 'task',
    changes: true,
    request: (run, taskId) => ({
      method: 'POST',
      url: '/api/tasks',
      body: {
        taskId,
        workflowInstanceId: run,
        status: 'FAILED_WITH_TERMINAL_ERROR',
        reasonForIncompletion: 'x',
      },
    }),
  },
  {
    name: 'lease extension (POST /api/tasks, IN_PROGRESS, extendLease)',
    workerRoute: true,
    group: 'task',
    // A task not yet taken has no lease to move: nothing visible changes when allowed.
    changes: false,
    request: (run, taskId) => ({
      method: 'POST',
      url: '/api/tasks',
      body: {
        taskId,
        workflowInstanceId: run,
        status: 'IN_PROGRESS',
        extendLease: true,
        outputData: { by: 'x' },
      },
    }),
  },
  {
    name: 'update-v2',
    workerRoute: true,
    group: 'task',
    changes: true,
    request: (run, taskId) => ({
      method: 'POST',
      url: '/api/tasks/update-v2',
      body: { taskId, workflowInstanceId: run, status: 'COMPLETED', outputData: { by: 'x' } },
    }),
  },
  {
    name: 'complete by reference name',
    workerRoute: true,
    group: 'task',
    changes: true,
    request: (run) => ({ method: 'POST', url: `/api/tasks/${run}/b/COMPLETED`, body: { by: 'x' } }),
  },
  {
    name: 'fail by reference name',
    workerRoute: true,
    group: 'task',
    changes: true,
    request: (run) => ({ method: 'POST', url: `/api/tasks/${run}/b/FAILED`, body: { by: 'x' } }),
  },
  {
    name: 'complete by reference name, answering the run (sync)',
    // It answers the whole run, which a worker role may not read: not a worker route.
    workerRoute: false,
    group: 'task',
    changes: true,
    request: (run) => ({ method: 'POST', url: `/api/tasks/${run}/b/COMPLETED/sync`, body: { by: 'x' } }),
  },
  {
    name: 'poll one task of type B',
    workerRoute: true,
    group: 'task',
    // Another run's type-B task may be the one handed out: the polled task is not checked.
    changes: false,
    request: () => ({ method: 'GET', url: `/api/tasks/poll/${B}?workerid=sweep` }),
  },
  {
    name: 'poll a batch of type B',
    workerRoute: true,
    group: 'task',
    changes: false,
    request: () => ({ method: 'GET', url: `/api/tasks/poll/batch/${B}?count=1&timeout=1&workerid=sweep` }),
  },
  {
    name: 'append a log line',
    workerRoute: true,
    group: 'task',
    changes: true,
    request: (_run, taskId) => ({ method: 'POST', url: `/api/tasks/${taskId}/log`, body: 'line' }),
  },
  {
    name: 'read the task',
    workerRoute: true,
    group: 'task',
    changes: false,
    request: (_run, taskId) => ({ method: 'GET', url: `/api/tasks/${taskId}` }),
  },
  {
    name: "read the task's log",
    workerRoute: true,
    group: 'task',
    changes: false,
    request: (_run, taskId) => ({ method: 'GET', url: `/api/tasks/${taskId}/log` }),
  },
  {
    name: 'signal the run (task group)',
    workerRoute: false,
    group: 'task',
    changes: true,
    request: (run) => ({ method: 'POST', url: `/api/tasks/${run}/COMPLETED/signal`, body: { by: 'x' } }),
  },
  {
    name: 'signal the run and answer its state (task group, sync)',
    workerRoute: false,
    group: 'task',
    changes: true,
    request: (run) => ({ method: 'POST', url: `/api/tasks/${run}/COMPLETED/signal/sync`, body: { by: 'x' } }),
  },
  {
    name: 'signal the run (workflow group)',
    workerRoute: false,
    group: 'workflow',
    changes: true,
    request: (run) => ({ method: 'POST', url: `/api/workflow/${run}/signal`, body: { by: 'x' } }),
  },
  {
    name: 'skip the task',
    workerRoute: false,
    group: 'workflow',
    changes: true,
    request: (run) => ({
      method: 'PUT',
      url: `/api/workflow/${run}/skiptask/b`,
      body: { taskOutput: { by: 'x' } },
    }),
  },
  {
    name: 'rerun from the task',
    workerRoute: false,
    group: 'workflow',
    changes: true,
    request: (run, taskId) => ({
      method: 'POST',
      url: `/api/workflow/${run}/rerun`,
      body: { reRunFromTaskId: taskId, taskInput: { by: 'x' } },
    }),
  },
  {
    name: 'retry the run',
    workerRoute: false,
    group: 'workflow',
    changes: true,
    request: (run) => ({ method: 'POST', url: `/api/workflow/${run}/retry` }),
  },
  {
    name: 'terminate the run (cancels its tasks)',
    workerRoute: false,
    group: 'workflow',
    changes: true,
    request: (run) => ({ method: 'POST', url: `/api/workflow/${run}/terminate?reason=sweep` }),
  },
  {
    name: 'restart the run',
    workerRoute: false,
    group: 'workflow',
    changes: true,
    request: (run) => ({ method: 'POST', url: `/api/workflow/${run}/restart` }),
  },
];

/** Test clients and the roles they hold (auth-fixture's CLIENTS). */
const ROLES: Array<{ client: string; roles: string[] }> = [
  { client: 'c-admin', roles: ['admin'] },
  { client: 'c-metadata', roles: ['metadata'] },
  { client: 'c-workflow', roles: ['workflow'] },
  { client: 'c-task', roles: ['task'] },
  { client: 'c-event', roles: ['event'] },
  { client: 'c-none', roles: [] },
  { client: 'c-worker-a', roles: [`worker:${A}`] },
  { client: 'c-worker-all', roles: ['worker:*'] },
  // The same roles held by applications (an access key's token from /api/token).
  { client: 'app:workflow', roles: ['workflow'] },
  { client: 'app:task', roles: ['task'] },
  { client: 'app:metadata', roles: ['metadata'] },
  { client: 'app:none', roles: [] },
  { client: `app:worker:${A}`, roles: [`worker:${A}`] },
  { client: 'app:worker:*', roles: ['worker:*'] },
];

/** May a holder of these roles act on a type-B task through this path? */
function allowed(roles: string[], path: TaskPath): boolean {
  if (roles.includes('admin') || roles.includes(path.group)) return true;
  if (!path.workerRoute) return false;
  return roles.includes('worker:*') || roles.includes(`worker:${B}`);
}

for (const storeCase of storeCases()) {
  void describe(`auth: the role is checked on the very task a route changes on ${storeCase.name}`, () => {
    const t = authSuite(storeCase);
    const appTokens = new Map<string, string>();

    /** An identity-provider token, or for `app:…` callers an application key's token. */
    async function tokenOf(client: string): Promise<string> {
      if (!client.startsWith('app:')) return t.token(client);
      const cached = appTokens.get(client);
      if (cached) return cached;
      const token = async (keyId: string, keySecret: string): Promise<string> => {
        const res = await send(t.app, 'POST', '/api/token', { body: { keyId, keySecret } });
        assert.equal(res.status, 200, res.text);
        return res.body.token as string;
      };
      const admin = await token(BOOTSTRAP.keyId, BOOTSTRAP.keySecret);
      const created = await send(t.app, 'POST', '/api/applications', {
        token: admin,
        body: { name: client },
      });
      assert.equal(created.status, 200, created.text);
      const role = client.slice('app:'.length);
      if (role !== 'none') {
        const granted = await send(t.app, 'POST', `/api/applications/${created.body.id}/roles/${role}`, {
          token: admin,
        });
        assert.equal(granted.status, 200, granted.text);
      }
      const key = await send(t.app, 'POST', `/api/applications/${created.body.id}/accessKeys`, {
        token: admin,
      });
      assert.equal(key.status, 200, key.text);
      const fresh = await token(key.body.id, key.body.secret);
      appTokens.set(client, fresh);
      return fresh;
    }

    /** A run with `b__1` (type A) and `b` (type B) both open; answers the run and both tasks. */
    async function startTwins(): Promise<{ run: string; a: any; b: any }> {
      const res = await send(t.app, 'POST', '/api/workflow/twins', {
        token: await t.token('c-workflow'),
        body: { input: {} },
      });
      assert.equal(res.status, 200, res.text);
      const run = await send(t.app, 'GET', `/api/workflow/${res.text}`, { token: await t.token('c-admin') });
      const a = run.body.tasks.find((x: any) => x.referenceTaskName === 'b__1');
      const b = run.body.tasks.find((x: any) => x.referenceTaskName === 'b');
      assert.ok(a && b, JSON.stringify(run.body.tasks));
      assert.equal(a.taskType, A);
      assert.equal(b.taskType, B);
      return { run: res.text, a, b };
    }

    async function stateOf(taskId: string): Promise<string> {
      const admin = await t.token('c-admin');
      const task = await send(t.app, 'GET', `/api/tasks/${taskId}`, { token: admin });
      const logs = await send(t.app, 'GET', `/api/tasks/${taskId}/log`, { token: admin });
      const { updateTime: _u, waitingFor: _w, ...rest } = task.body;
      return JSON.stringify([rest, logs.status === 204 ? [] : logs.body]);
    }

    void it('registers types A and B and a run holding refs b__1 (A) and b (B)', async () => {
      const meta = await t.token('c-metadata');
      const defs = await send(t.app, 'POST', '/api/metadata/taskdefs', {
        token: meta,
        body: workerTaskDefs([A, B]),
      });
      assert.equal(defs.status, 200, defs.text);
      const def = workflowDef('twins', [
        {
          name: 'fork',
          taskReferenceName: 'fork',
          type: 'FORK_JOIN',
          forkTasks: [
            [{ name: A, taskReferenceName: 'b__1', type: 'SIMPLE' }],
            [{ name: B, taskReferenceName: 'b', type: 'SIMPLE' }],
          ],
        },
        { name: 'join', taskReferenceName: 'join', type: 'JOIN', joinOn: ['b__1', 'b'] },
      ]);
      const res = await send(t.app, 'POST', '/api/metadata/workflow', { token: meta, body: def });
      assert.equal(res.status, 200, res.text);
    });

    void it('the exploit: worker:A completing ref b (type B) by reference name is refused, b unchanged', async () => {
      const { run, a, b } = await startTwins();
      const before = await stateOf(b.taskId);
      const res = await send(t.app, 'POST', `/api/tasks/${run}/b/COMPLETED`, {
        token: await t.token('c-worker-a'),
        body: { stolen: true },
      });
      assert.equal(res.status, 403, res.text);
      assert.match(res.text, new RegExp(`worker:${B}`));
      assert.equal(await stateOf(b.taskId), before, 'the type-B task is unchanged');
      assert.equal(
        (await send(t.app, 'GET', `/api/tasks/${a.taskId}`, { token: await t.token('c-admin') })).body.status,
        'SCHEDULED',
      );
      // Its own task, by its own ref, it may complete.
      const own = await send(t.app, 'POST', `/api/tasks/${run}/b__1/COMPLETED`, {
        token: await t.token('c-worker-a'),
        body: { mine: true },
      });
      assert.equal(own.status, 200, own.text);
      assert.equal(own.text, a.taskId);
    });

    void it('every task path × every role: refused callers get 403 and change nothing; allowed ones are let through', async () => {
      const problems: string[] = [];
      for (const path of PATHS) {
        for (const { client, roles } of ROLES) {
          const { run, b } = await startTwins();
          const before = await stateOf(b.taskId);
          const req = path.request(run, b.taskId);
          const res = await send(t.app, req.method, req.url, {
            token: await tokenOf(client),
            ...(req.body !== undefined && { body: req.body }),
          });
          const expected = allowed(roles, path);
          if (expected && res.status === 403) problems.push(`${client} ${path.name}: refused (${res.text})`);
          if (!expected) {
            if (res.status !== 403) problems.push(`${client} ${path.name}: ${res.status} (expected 403)`);
            if ((await stateOf(b.taskId)) !== before)
              problems.push(`${client} ${path.name}: the task changed`);
          }
          if (expected && path.changes && res.status < 300 && path.group === 'task' && path.workerRoute) {
            if ((await stateOf(b.taskId)) === before)
              problems.push(`${client} ${path.name}: allowed but nothing changed`);
          }
        }
      }
      assert.deepEqual(problems, []);
    });
  });
}
