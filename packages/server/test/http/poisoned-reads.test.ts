import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { RunRecord, TaskRecord } from '@baton/protocol';

import { call } from '../helpers/app.js';
import { appSuite, register } from '../helpers/app-suite.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { storeCases } from '../helpers/stores.js';

/**
 * Records written by older versions, which accepted numbers without bounds, must never make a run
 * unreadable: each extreme value the old routes let through is written straight into the store
 * (through the store port, as the old code would have), then the run is read and driven through
 * the API. Every answer must be below 500, and times that cannot be shown read "unknown".
 */

/** 9007199254740993 (2^53 + 1) as a JSON number reads as 2^53. */
const HUGE = 2 ** 53;
const ABSURD = 1e308;

for (const storeCase of storeCases()) {
  describe(`runs holding extreme stored values stay readable (${storeCase.name})`, () => {
    const t = appSuite(storeCase);

    it('reads, searches, explains and drives a run whose records hold extreme values', async () => {
      const app = t.app;
      await register(
        app,
        [
          workflowDef('poison_flow', [
            { name: 'poison_task', taskReferenceName: 'first', type: 'SIMPLE' },
            {
              name: 'poison_wait',
              taskReferenceName: 'pause',
              type: 'WAIT',
              inputParameters: { duration: '1 days' },
            },
          ]),
        ],
        workerTaskDefs(['poison_task']),
      );
      const started = await call(app, 'POST', '/api/workflow', {
        name: 'poison_flow',
        correlationId: 'poison',
      });
      assert.equal(started.status, 200, started.text);
      const workflowId = started.text;
      const run = await call(app, 'GET', `/api/workflow/${workflowId}`);
      const taskId: string = run.body.tasks[0].taskId;

      // What the old routes accepted, written as they would have stored it.
      await t.store.transaction(async (tx) => {
        const def = await tx.getWorkflowDef('poison_flow', 1);
        assert.ok(def);
        await tx.upsertWorkflowDef({ ...def, timeoutSeconds: ABSURD });
        const taskDef = await tx.getTaskDef('poison_task');
        assert.ok(taskDef);
        await tx.upsertTaskDef({
          ...taskDef,
          timeoutSeconds: ABSURD,
          responseTimeoutSeconds: ABSURD,
          retryDelaySeconds: ABSURD,
          rateLimitFrequencyInSeconds: ABSURD,
          rateLimitPerFrequency: 1,
          totalTimeoutSeconds: HUGE,
          pollTimeoutSeconds: HUGE,
          retryCount: HUGE,
        });
        const task = (await tx.getTask(taskId)) as TaskRecord;
        await tx.updateTasks([
          {
            ...task,
            status: 'IN_PROGRESS',
            callbackAfterSeconds: HUGE,
            responseTimeoutSeconds: ABSURD,
            startDelayInSeconds: ABSURD,
            startTime: HUGE,
            scheduledTime: -ABSURD,
            retryCount: HUGE,
            pollCount: HUGE,
            workflowTask: { ...task.workflowTask, startDelay: ABSURD },
          },
        ]);
        const record = (await tx.getRun(workflowId)) as RunRecord;
        await tx.updateRun({
          ...record,
          priority: 2_147_483_647,
          input: { timeoutSeconds: ABSURD, version: HUGE },
          endTime: HUGE,
        });
        await tx.requeueMessage(taskId, 2 ** 53);
        await tx.armTimers(
          [
            {
              timerId: `poison-${workflowId}`,
              workflowId,
              taskId,
              kind: 'RESPONSE_TIMEOUT',
              dueAt: 2 ** 53,
              payload: {},
            },
          ],
          Date.now(),
        );
      });

      const reads = [
        `/api/workflow/${workflowId}`,
        `/api/workflow/${workflowId}?includeTasks=false`,
        `/api/workflow/${workflowId}/status?includeOutput=true&includeVariables=true`,
        `/api/tasks/${taskId}`,
        `/api/tasks/${taskId}/log`,
        '/api/workflow/search?size=100',
        '/api/workflow/search?freeText=poison&sort=updateTime:DESC',
        '/api/workflow/poison_flow/correlated/poison?includeClosed=true&includeTasks=true',
        '/api/tasks/queue/sizes',
        '/api/tasks/queue/all',
        '/api/tasks/queue/polldata?taskType=poison_task',
        '/api/admin/queues',
        '/api/metadata/workflow/poison_flow',
        '/api/metadata/taskdefs/poison_task',
        '/metrics',
      ];
      for (const url of reads) {
        const res = await call(app, 'GET', url);
        assert.ok(res.status < 500, `GET ${url} → ${res.status} ${res.text.slice(0, 300)}`);
      }
      const read = await call(app, 'GET', `/api/workflow/${workflowId}`);
      assert.equal(read.status, 200, read.text);
      const waiting = JSON.stringify(read.body.tasks[0].waitingFor ?? {});
      assert.ok(!/Invalid/.test(waiting), waiting);

      // Driving the run on from there: a poll, a result, a retry once it failed, a terminate.
      const actions: Array<[method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown]> = [
        ['GET', '/api/tasks/poll/poison_task?workerid=w'],
        [
          'POST',
          '/api/tasks',
          { taskId, workflowInstanceId: workflowId, status: 'IN_PROGRESS', callbackAfterSeconds: 60 },
        ],
        [
          'POST',
          '/api/tasks',
          { taskId, workflowInstanceId: workflowId, status: 'FAILED', reasonForIncompletion: 'x' },
        ],
        ['POST', `/api/workflow/${workflowId}/resetcallbacks`],
        ['POST', `/api/admin/repair/${workflowId}`],
        ['PUT', `/api/workflow/${workflowId}/pause`],
        ['PUT', `/api/workflow/${workflowId}/resume`],
        ['PUT', `/api/workflow/${workflowId}/skiptask/pause`, {}],
        ['DELETE', `/api/workflow/${workflowId}?reason=poison`],
        ['POST', `/api/workflow/${workflowId}/retry`],
        ['POST', `/api/workflow/${workflowId}/restart`],
        ['POST', '/api/workflow', { name: 'poison_flow' }],
        ['GET', '/api/tasks/poll/batch/poison_task?count=5&timeout=0'],
      ];
      for (const [method, url, body] of actions) {
        const res = await call(app, method, url, body);
        assert.ok(res.status < 500, `${method} ${url} → ${res.status} ${res.text.slice(0, 300)}`);
      }
      await t.server.timers.fireDue();

      // A version as large as the store's column holds (2^40 on SQLite's 64-bit INTEGER, 2^31 − 1
      // on PostgreSQL's INTEGER), with a run of it: listed, read, searched, and started again.
      const bigVersion = t.store.dialect === 'sqlite' ? 2 ** 40 : 2 ** 31 - 1;
      const bigRunId = `big-version-${workflowId}`;
      await t.store.transaction(async (tx) => {
        const def = await tx.getWorkflowDef('poison_flow', 1);
        assert.ok(def);
        await tx.upsertWorkflowDef({ ...def, version: bigVersion });
        const record = (await tx.getRun(workflowId)) as RunRecord;
        await tx.insertRun({
          ...record,
          workflowId: bigRunId,
          workflowVersion: bigVersion,
          workflowDefinition: { ...record.workflowDefinition, version: bigVersion },
        });
      });
      for (const [method, url, body] of [
        ['GET', '/api/metadata/workflow'],
        ['GET', '/api/metadata/workflow/poison_flow'],
        ['GET', `/api/metadata/workflow/poison_flow?version=${bigVersion}`],
        ['GET', `/api/workflow/${bigRunId}`],
        ['GET', '/api/workflow/search?freeText=poison_flow&size=50'],
        ['POST', '/api/workflow', { name: 'poison_flow' }],
        ['POST', `/api/workflow/${bigRunId}/restart?useLatestDefinitions=true`],
        ['DELETE', `/api/metadata/workflow/poison_flow/${bigVersion}`],
      ] as Array<[method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown]>) {
        const res = await call(app, method, url, body);
        assert.ok(res.status < 500, `${method} ${url} → ${res.status} ${res.text.slice(0, 300)}`);
      }
      for (const url of reads) {
        const res = await call(app, 'GET', url);
        assert.ok(
          res.status < 500,
          `after the actions, GET ${url} → ${res.status} ${res.text.slice(0, 300)}`,
        );
      }
    });
  });
}
