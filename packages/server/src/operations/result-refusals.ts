import type { Logger } from 'pino';

import type { TaskRecord, TaskResult } from '@baton/protocol';

import type { ResultVerdict } from '../engine/index.js';
import { fail, failWith } from '../errors.js';
import type { Metrics } from '../metrics.js';

/** A result judged in its transaction: applied, or not, and why (a refusal is thrown after it). */
export interface Judged {
  task: TaskRecord;
  applied: boolean;
  verdict?: ResultVerdict;
}

/**
 * A refused result (judged in the transaction, which changed nothing): counted, logged and
 * answered 409 naming the task's status (and its holder). Thrown after the transaction so a
 * transaction run again is not counted twice.
 */
export function refuseIfStale(
  judged: Judged,
  workerId: string | undefined,
  observers: { metrics?: Metrics | undefined; logger?: Pick<Logger, 'warn'> | undefined },
  strict = false,
): void {
  const verdict = judged.verdict;
  if (verdict?.kind !== 'refuse') return;
  const task = judged.task;
  observers.metrics?.resultRefused(task.taskDefName, verdict.reason);
  if (verdict.reason === 'lapsed' && !strict) {
    // Answered as Conductor does (2xx, nothing applied), but never in silence.
    observers.logger?.warn(
      { taskId: task.taskId, workflowId: task.workflowInstanceId, taskType: task.taskDefName, workerId },
      `late task result not applied: ${verdict.message}`,
    );
    return;
  }
  observers.logger?.warn(
    {
      taskId: task.taskId,
      workflowId: task.workflowInstanceId,
      taskType: task.taskDefName,
      status: task.status,
      holder: task.workerId,
      workerId,
      reason: verdict.reason,
    },
    `task result refused: ${verdict.message}`,
  );
  throw failWith(
    verdict.reason === 'held' ? 'TASK_HELD_BY_OTHER_WORKER' : 'TASK_ATTEMPT_ENDED',
    verdict.message,
  );
}

/** A result that names a run must name the task's. */
export function checkResultRun(task: TaskRecord, result: TaskResult): void {
  if (result.workflowInstanceId && result.workflowInstanceId !== task.workflowInstanceId) {
    throw fail(
      'TASK_RESULT_RUN_MISMATCH',
      { taskId: result.taskId, actual: task.workflowInstanceId, given: result.workflowInstanceId },
      [
        {
          path: 'body.workflowInstanceId',
          message: 'does not match the task',
          invalidValue: result.workflowInstanceId,
        },
      ],
    );
  }
}
