import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { explainTask } from '../../src/views/waiting.js';
import type { StoredQueueMessage } from '../../src/store/store.js';
import { T0, task } from '../store/fixtures.js';

const message = (overrides: Partial<StoredQueueMessage> = {}): StoredQueueMessage => ({
  taskId: 't',
  queueName: 'resize',
  workflowId: 'run-1',
  taskRef: 'ref_1',
  attempt: 1,
  priority: 0,
  visibleAt: T0,
  lockMs: 60_000,
  lockedUntil: null,
  lockToken: null,
  workerId: null,
  deliveryCount: 0,
  deadLettered: false,
  createdAt: T0,
  ...overrides,
});

void describe('explainTask', () => {
  void it('an ended task waits for nothing', () => {
    assert.equal(explainTask(task('run-1', 1, { status: 'COMPLETED' }), undefined, [], T0), undefined);
  });

  void it('a task without a queue is completed from outside', () => {
    const w = explainTask(
      task('run-1', 1, { taskType: 'HUMAN', referenceTaskName: 'approve' }),
      undefined,
      [],
      T0,
    );
    assert.equal(w?.reason, 'external');
    assert.equal(
      w?.message,
      'waiting: to be completed from outside (POST /api/tasks/run-1/approve/{status})',
    );
  });

  void it('a limit deferral counts only while the message is still due at the deferral’s time', () => {
    const deferred = task('run-1', 1, {
      queueName: 'resize',
      limitDeferral: { reason: 'rate-limit', until: T0 + 60_000 },
    });
    assert.equal(explainTask(deferred, message({ visibleAt: T0 + 60_000 }), [], T0)?.reason, 'rate-limit');
    assert.equal(explainTask(deferred, message({ visibleAt: T0 + 5_000 }), [], T0)?.reason, 'start-delay');
  });

  void it('a -high queue is served by the pollers of its base queue', () => {
    const t = task('run-1', 1, { queueName: 'resize-high', status: 'SCHEDULED' });
    const polls = [{ queueName: 'resize', workerId: 'w9', lastPollTime: T0 - 2000 }];
    const w = explainTask(t, message({ queueName: 'resize-high' }), polls, T0);
    assert.equal(w?.reason, 'worker');
    assert.match(w?.message ?? '', /last poll 2 s ago by w9/);
  });

  void it('a lapsed lock is a response timeout due: the sweep makes the next attempt', () => {
    const t = task('run-1', 1, { queueName: 'resize', status: 'IN_PROGRESS', pollCount: 1, workerId: 'w9' });
    const lapsed = message({ lockedUntil: T0 - 1000, visibleAt: T0 - 1000 });
    const w = explainTask(t, lapsed, [], T0);
    assert.equal(w?.reason, 'lock-lapsed');
    assert.equal(w?.until, T0 - 1000);
    assert.equal(w?.workerId, 'w9');
    assert.match(
      w?.message ?? '',
      /its response timeout has been due since .*: the next attempt is made now$/,
    );
    // Put back unlocked while a worker may hold it: the next hand-out locks it, never hands it out.
    const unlocked = message({ lockedUntil: null, visibleAt: T0 + 60_000 });
    const u = explainTask(t, unlocked, [], T0);
    assert.equal(u?.reason, 'lock-lapsed');
    assert.equal(u?.until, undefined);
  });
});
