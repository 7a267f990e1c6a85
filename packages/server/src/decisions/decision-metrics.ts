import { isSystemQueue, type Decision } from '../engine/index.js';
import {
  isTerminalTaskStatus,
  isTerminalWorkflowStatus,
  type RunRecord,
  type TaskRecord,
} from '@baton/protocol';
import type { Logger } from 'pino';

import type { Metrics } from '../metrics.js';
import type { ExecutionObserver } from './decision-applier.js';
import { ACTIVE_WORKER_WINDOW_MS, type WorkerLiveness } from '../handout/worker-liveness.js';

/**
 * Watches every applied decision: counts runs started and ended and tasks ended, and warns when
 * work is queued for a queue no worker has polled in the last 10 s (a log line, throttled to one
 * per queue per 10 s, and a metric for every such enqueue).
 *
 * It runs inside the deciding transaction, so a transaction retried after a PostgreSQL
 * deadlock or serialization failure may count twice; these are operational signals, not books.
 */
export class DecisionMetrics implements ExecutionObserver {
  private readonly lastWarned = new Map<string, number>();

  constructor(
    private readonly metrics: Metrics,
    private readonly liveness: WorkerLiveness,
    private readonly logger: Pick<Logger, 'warn'>,
  ) {}

  decided(
    before: RunRecord | undefined,
    beforeTasks: readonly TaskRecord[],
    decision: Decision,
    now: number,
  ): void {
    const run = decision.run;
    if (before === undefined) this.metrics.runStarted(run.workflowName);
    if (
      isTerminalWorkflowStatus(run.status) &&
      (before === undefined || !isTerminalWorkflowStatus(before.status))
    ) {
      this.metrics.runEnded(run.workflowName, run.status, (run.endTime || now) - run.createTime);
    }
    const previous = new Map(beforeTasks.map((t) => [t.taskId, t.status]));
    const touched = [...decision.newTasks, ...decision.updatedTasks];
    for (const task of touched) {
      const was = previous.get(task.taskId);
      if (isTerminalTaskStatus(task.status) && (was === undefined || !isTerminalTaskStatus(was))) {
        this.metrics.taskEnded(task.taskType, task.status);
      }
    }
    const byId = new Map(touched.map((t) => [t.taskId, t]));
    for (const command of decision.commands) {
      if (command.type !== 'ENQUEUE') continue;
      const task = byId.get(command.taskId);
      // System calls (`_system-*`) are taken by the engine's own executor on every node.
      if (task && !isSystemQueue(task.queueName)) this.checkWorker(task, now);
    }
  }

  private checkWorker(task: TaskRecord, now: number): void {
    const queue = task.domain === undefined ? task.taskType : `${task.domain}-${task.taskType}`;
    const last = this.liveness.lastPollOf(queue);
    if (last !== undefined && now - last < ACTIVE_WORKER_WINDOW_MS) return;
    this.metrics.noWorkerWarning(task.taskType);
    const warned = this.lastWarned.get(queue);
    if (warned !== undefined && now - warned < ACTIVE_WORKER_WINDOW_MS) return;
    this.lastWarned.set(queue, now);
    const since = last === undefined ? undefined : Math.floor((now - last) / 1000);
    this.logger.warn(
      {
        taskType: task.taskType,
        queueName: queue,
        secondsSinceLastPoll: since ?? null,
        workflowId: task.workflowInstanceId,
      },
      since === undefined
        ? `work queued for ${task.taskType} on ${queue}, but no worker has ever polled it`
        : `work queued for ${task.taskType} on ${queue}, but no worker has polled it for ${since} s`,
    );
  }
}
