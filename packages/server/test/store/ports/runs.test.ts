import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { RunRecord } from '@baton/protocol';

import { storeCases } from '../../helpers/stores.js';
import { storeSuite } from '../../helpers/store-suite.js';
import { T0, run, task, uid } from '../fixtures.js';

const ids = (runs: RunRecord[]): string[] => runs.map((r) => r.workflowId);

for (const c of storeCases()) {
  void describe(`store runs and tasks (${c.name})`, () => {
    const { store } = storeSuite(c);

    void it('inserts, reads, locks and updates a run', async () => {
      const r = run({
        correlationId: 'c-1',
        idempotencyKey: 'k-1',
        parentWorkflowId: 'p-1',
        parentWorkflowTaskId: 't-9',
      });
      await store.transaction((tx) => tx.insertRun(r));
      assert.deepEqual(await store.read((tx) => tx.getRun(r.workflowId)), r);
      assert.equal(await store.read((tx) => tx.getRun(uid('missing-'))), undefined);

      const updated: RunRecord = {
        ...r,
        status: 'COMPLETED',
        output: { done: true, list: [1, 2] },
        variables: { v: 'x' },
        updateTime: T0 + 10,
        endTime: T0 + 10,
        reasonForIncompletion: 'none',
      };
      await store.transaction(async (tx) => {
        assert.deepEqual(await tx.lockRun(r.workflowId), r);
        await tx.updateRun(updated);
      });
      assert.deepEqual(await store.read((tx) => tx.getRun(r.workflowId)), updated);
      assert.equal(await store.transaction((tx) => tx.lockRun(uid('missing-'))), undefined);
      assert.equal(await store.read((tx) => tx.lockRun(r.workflowId).then((x) => x?.status)), 'COMPLETED');
    });

    void it('reads a task while locking its run; a lockRun right after answers that run', async () => {
      const r = run();
      const t = task(r.workflowId, 0);
      await store.transaction(async (tx) => {
        await tx.insertRun(r);
        await tx.insertTasks([t]);
      });
      await store.transaction(async (tx) => {
        assert.deepEqual(await tx.getTaskLockingRun(t.taskId, r.workflowId), t);
        assert.deepEqual(await tx.lockRun(r.workflowId), r);
        assert.deepEqual(
          (await tx.getDecideTasks(r.workflowId)).map((x) => x.taskId),
          [t.taskId],
        );
      });
      // A write in between: lockRun reads the run again.
      const paused: RunRecord = { ...r, status: 'PAUSED', updateTime: T0 + 5 };
      await store.transaction(async (tx) => {
        await tx.getTaskLockingRun(t.taskId, r.workflowId);
        await tx.updateRun(paused);
        assert.deepEqual(await tx.lockRun(r.workflowId), paused);
      });
      // Another run, or none: the task is answered all the same, and the caller checks its run.
      const missing = uid('missing-');
      await store.transaction(async (tx) => {
        assert.equal(await tx.getTaskLockingRun(uid('missing-task-'), r.workflowId), undefined);
        assert.deepEqual(await tx.getTaskLockingRun(t.taskId, missing), t);
        assert.equal(await tx.lockRun(missing), undefined);
        assert.deepEqual(await tx.lockRun(r.workflowId), paused);
      });
      assert.deepEqual(await store.read((tx) => tx.getTaskLockingRun(t.taskId, r.workflowId)), t);
    });

    void it('answers the decide set as written when a write comes between it and the task read with the lock', async () => {
      const r = run();
      const t = task(r.workflowId, 0);
      await store.transaction(async (tx) => {
        await tx.insertRun(r);
        await tx.insertTasks([t]);
      });
      const next = task(r.workflowId, 1, { referenceTaskName: 'next' });
      await store.transaction(async (tx) => {
        const got = await tx.getTaskLockingRun(t.taskId, r.workflowId);
        assert.deepEqual(got, t);
        await tx.updateTasks([{ ...t, status: 'COMPLETED', endTime: T0 + 2, executed: false }]);
        await tx.insertTasks([next]);
        assert.deepEqual(
          (await tx.getDecideTasks(r.workflowId)).map((x) => [x.taskId, x.status]),
          [
            [t.taskId, 'COMPLETED'],
            [next.taskId, 'SCHEDULED'],
          ],
        );
      });
      // Nothing written in between: the same set, each task an object of its own.
      await store.transaction(async (tx) => {
        const got = await tx.getTaskLockingRun(next.taskId, r.workflowId);
        if (got) got.status = 'FAILED';
        const set = await tx.getDecideTasks(r.workflowId);
        assert.deepEqual(
          set.map((x) => [x.taskId, x.status]),
          [
            [t.taskId, 'COMPLETED'],
            [next.taskId, 'SCHEDULED'],
          ],
        );
        assert.notEqual(set[1], got);
      });
    });

    void it('reads a task with its run lock whether or not the decide set holds it, and answers a copy', async () => {
      const r = run();
      // An ended attempt and its retry under one name: only the retry is in the decide set.
      const old = task(r.workflowId, 0, {
        referenceTaskName: 'x',
        status: 'FAILED',
        endTime: T0 + 1,
        executed: true,
      });
      const retry = task(r.workflowId, 1, { referenceTaskName: 'x', retryCount: 1 });
      await store.transaction(async (tx) => {
        await tx.insertRun(r);
        await tx.insertTasks([old, retry]);
      });
      await store.transaction(async (tx) => {
        assert.deepEqual(await tx.getTaskLockingRun(old.taskId, r.workflowId), old);
        assert.deepEqual(await tx.lockRun(r.workflowId), r, 'still answered from the lock');
        assert.deepEqual(
          (await tx.getDecideTasks(r.workflowId)).map((x) => x.taskId),
          [retry.taskId],
        );
      });
      await store.transaction(async (tx) => {
        const got = await tx.getTaskLockingRun(retry.taskId, r.workflowId);
        assert.deepEqual(got, retry);
        if (got) got.status = 'COMPLETED';
        assert.equal(
          (await tx.getDecideTasks(r.workflowId))[0]?.status,
          'SCHEDULED',
          'the decide set as read',
        );
      });
    });

    void it('holds the run lock taken with the task until the transaction ends', async () => {
      const r = run();
      const t = task(r.workflowId, 0);
      await store.transaction(async (tx) => {
        await tx.insertRun(r);
        await tx.insertTasks([t]);
      });
      let second: Promise<string | undefined> | undefined;
      await store.transaction(async (tx) => {
        await tx.getTaskLockingRun(t.taskId, r.workflowId);
        // Started while the lock is held: its lockRun waits, and then reads what this one wrote.
        second = store.transaction((tx2) => tx2.lockRun(r.workflowId).then((x) => x?.status));
        await tx.updateRun({ ...r, status: 'PAUSED', updateTime: T0 + 5 });
      });
      assert.equal(await second, 'PAUSED');
    });

    void it('never rewrites the definition snapshot on updateRun', async () => {
      const r = run();
      await store.transaction((tx) => tx.insertRun(r));
      const changedDef = { ...r.workflowDefinition, description: 'rewritten', tasks: [] };
      await store.transaction((tx) =>
        tx.updateRun({ ...r, status: 'PAUSED', workflowDefinition: changedDef }),
      );
      const got = await store.read((tx) => tx.getRun(r.workflowId));
      assert.equal(got?.status, 'PAUSED');
      assert.deepEqual(got?.workflowDefinition, r.workflowDefinition);
    });

    void it('refuses to update a run that does not exist', async () => {
      await assert.rejects(
        store.transaction((tx) => tx.updateRun(run())),
        /no run/,
      );
    });

    void it('counts runs of a definition version', async () => {
      const name = uid('wf-');
      await store.transaction(async (tx) => {
        await tx.insertRun(run({ workflowName: name, workflowVersion: 1 }));
        await tx.insertRun(run({ workflowName: name, workflowVersion: 1 }));
        await tx.insertRun(run({ workflowName: name, workflowVersion: 2 }));
      });
      await store.read(async (tx) => {
        assert.equal(await tx.countRunsOfVersion(name, 1), 2);
        assert.equal(await tx.countRunsOfVersion(name, 2), 1);
        assert.equal(await tx.countRunsOfVersion(name, 3), 0);
      });
    });

    void it('finds runs by correlation id, open ones only unless closed are asked for', async () => {
      const name = uid('wf-');
      const corr = uid('corr-');
      const a = run({ workflowName: name, correlationId: corr, status: 'RUNNING', createTime: T0 + 1 });
      const b = run({ workflowName: name, correlationId: corr, status: 'COMPLETED', createTime: T0 + 2 });
      const p = run({ workflowName: name, correlationId: corr, status: 'PAUSED', createTime: T0 + 3 });
      const other = run({ workflowName: uid('other-'), correlationId: corr });
      await store.transaction(async (tx) => {
        for (const r of [a, b, p, other]) await tx.insertRun(r);
      });
      await store.read(async (tx) => {
        assert.deepEqual(ids(await tx.runsByCorrelationId(name, corr, false)), [a.workflowId, p.workflowId]);
        assert.deepEqual(ids(await tx.runsByCorrelationId(name, corr, true)), [
          a.workflowId,
          b.workflowId,
          p.workflowId,
        ]);
        assert.deepEqual(await tx.runsByCorrelationId(name, uid('none-'), true), []);
      });
    });

    void it('inserts, updates and reads tasks in seq order', async () => {
      const r = run();
      const t2 = task(r.workflowId, 2);
      const t0 = task(r.workflowId, 0, { workerId: 'w', domain: 'd', queueName: 'd-resize' });
      const t1 = task(r.workflowId, 1);
      const elsewhere = task(uid('run-'), 0);
      await store.transaction(async (tx) => {
        await tx.insertRun(r);
        await tx.insertTasks([t2, t0]);
        await tx.insertTasks([t1, elsewhere]);
        await tx.insertTasks([]);
      });
      await store.read(async (tx) => {
        assert.deepEqual(await tx.getRunTasks(r.workflowId), [t0, t1, t2]);
        assert.deepEqual(await tx.getTask(t0.taskId), t0);
        assert.equal(await tx.getTask(uid('missing-')), undefined);
        assert.deepEqual(await tx.getTasks([t2.taskId, uid('missing-'), t0.taskId]), [t2, t0]);
        assert.deepEqual(await tx.getTasks([]), []);
      });
      const done = {
        ...t0,
        status: 'COMPLETED' as const,
        outputData: { ok: 1 },
        endTime: T0 + 5,
        updateTime: T0 + 5,
      };
      const started = {
        ...t1,
        status: 'IN_PROGRESS' as const,
        pollCount: 1,
        startTime: T0 + 6,
        updateTime: T0 + 6,
      };
      await store.transaction((tx) => tx.updateTasks([done, started]));
      assert.deepEqual(await store.read((tx) => tx.getRunTasks(r.workflowId)), [done, started, t2]);
      await assert.rejects(store.transaction((tx) => tx.updateTasks([task(r.workflowId, 9)])));
      await assert.rejects(
        store.transaction((tx) => tx.insertTasks([t0])),
        'a taskId is inserted once',
      );
    });

    void it('updateOpenTasks writes only tasks that are still open (never reopens an ended task)', async () => {
      const r = run();
      const open = task(r.workflowId, 0);
      const ended = task(r.workflowId, 1, { status: 'CANCELED', endTime: T0 + 1 });
      await store.transaction(async (tx) => {
        await tx.insertRun(r);
        await tx.insertTasks([open, ended]);
      });
      const taken = { ...open, status: 'IN_PROGRESS' as const, pollCount: 1, workerId: 'w1' };
      const reopened = { ...ended, status: 'IN_PROGRESS' as const, pollCount: 1, workerId: 'w1' };
      const written = await store.transaction((tx) => tx.updateOpenTasks([taken, reopened]));
      assert.deepEqual(written, [taken.taskId]);
      assert.deepEqual(await store.read((tx) => tx.getRunTasks(r.workflowId)), [taken, ended]);
      assert.deepEqual(await store.transaction((tx) => tx.updateOpenTasks([])), []);
    });

    void it('appends and reads task logs in order', async () => {
      const taskId = uid('task-');
      await store.transaction((tx) =>
        tx.appendTaskLogs([
          { taskId, log: 'first', createdTime: T0 + 2 },
          { taskId, log: 'second', createdTime: T0 + 1 },
          { taskId: uid('task-'), log: 'other', createdTime: T0 },
        ]),
      );
      await store.transaction((tx) => tx.appendTaskLogs([{ taskId, log: 'third', createdTime: T0 + 3 }]));
      await store.transaction((tx) => tx.appendTaskLogs([]));
      assert.deepEqual(await store.read((tx) => tx.getTaskLogs(taskId)), [
        { taskId, log: 'first', createdTime: T0 + 2 },
        { taskId, log: 'second', createdTime: T0 + 1 },
        { taskId, log: 'third', createdTime: T0 + 3 },
      ]);
    });

    void it('records polls and answers poll data by task type', async () => {
      const type = uid('type-');
      await store.transaction((tx) =>
        tx.recordPolls([
          { queueName: type, taskType: type, workerId: 'w1', now: T0 },
          { queueName: `dom-${type}`, taskType: type, domain: 'dom', workerId: 'w1', now: T0 + 1 },
          { queueName: type, taskType: type, workerId: 'w2', now: T0 + 3 },
          // The same queue and worker twice in one call: the latest poll is kept.
          { queueName: type, taskType: type, workerId: 'w2', now: T0 + 2 },
          { queueName: uid('other-'), taskType: uid('other-'), workerId: 'w1', now: T0 },
        ]),
      );
      await store.transaction(async (tx) => {
        await tx.recordPolls([]);
        await tx.recordPolls([{ queueName: type, taskType: type, workerId: 'w1', now: T0 + 9 }]);
      });
      const polls = await store.read((tx) => tx.pollData(type));
      assert.deepEqual(polls, [
        { queueName: `dom-${type}`, domain: 'dom', workerId: 'w1', lastPollTime: T0 + 1 },
        { queueName: type, workerId: 'w1', lastPollTime: T0 + 9 },
        { queueName: type, workerId: 'w2', lastPollTime: T0 + 3 },
      ]);
      assert.ok((await store.read((tx) => tx.pollData())).length >= 4);
    });
  });
}
