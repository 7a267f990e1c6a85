import type { TaskDef, TaskRecord } from '@baton/protocol';
import type { ScheduleContext } from './kinds/kind.js';
import { type EffectiveTaskDef, effectiveTaskDef } from './task-config.js';
import type { Command, TimerKind } from './types.js';

/**
 * The durable timers a queued worker attempt needs (docs/design/task-lifecycle.md#timeouts), armed
 * in the same decision that queues it: POLL_TIMEOUT (no poll within pollTimeoutSeconds of becoming
 * visible), TASK_TIMEOUT (not completed within timeoutSeconds of becoming visible) and
 * TOTAL_TIMEOUT (all attempts together within totalTimeoutSeconds of the first one being queued).
 * The response timeout is no timer: it is the lapse of the hand-out's lock. Timers of an attempt
 * are cancelled when it ends.
 */
export function attemptTimers(
  sctx: ScheduleContext,
  task: TaskRecord,
  config: EffectiveTaskDef,
  visibleAt: number,
): Command[] {
  const commands: Command[] = [];
  const arm = (kind: TimerKind, dueAt: number, seconds: number): void => {
    commands.push({
      type: 'ARM_TIMER',
      timer: { timerId: sctx.ctx.newId(), kind, dueAt, taskId: task.taskId, payload: { seconds } },
    });
  };
  const poll = config.pollTimeoutSeconds;
  if (poll !== undefined && poll > 0) arm('POLL_TIMEOUT', visibleAt + poll * 1000, poll);
  if (config.timeoutSeconds > 0)
    arm('TASK_TIMEOUT', visibleAt + config.timeoutSeconds * 1000, config.timeoutSeconds);
  if (config.totalTimeoutSeconds > 0) {
    const first = firstScheduledTime(sctx, task);
    arm('TOTAL_TIMEOUT', first + config.totalTimeoutSeconds * 1000, config.totalTimeoutSeconds);
  }
  return commands;
}

/** When the first attempt of this task was queued (the attempt itself when it is the first). */
function firstScheduledTime(sctx: ScheduleContext, task: TaskRecord): number {
  let scheduled = task.scheduledTime;
  let previousId = task.retriedTaskId;
  const seen = new Set<string>();
  while (previousId !== undefined && !seen.has(previousId)) {
    seen.add(previousId);
    const previous = sctx.tasks.find((t) => t.taskId === previousId);
    if (!previous) break;
    scheduled = previous.scheduledTime;
    previousId = previous.retriedTaskId;
  }
  return scheduled;
}

/** The run's own deadline (definition `timeoutSeconds`), armed when the run starts or is reopened. */
export function workflowTimeoutTimer(
  newId: () => string,
  timeoutSeconds: number | undefined,
  from: number,
): Command[] {
  if (timeoutSeconds === undefined || !(timeoutSeconds > 0)) return [];
  return [
    {
      type: 'ARM_TIMER',
      timer: {
        timerId: newId(),
        kind: 'WORKFLOW_TIMEOUT',
        dueAt: from + timeoutSeconds * 1000,
        payload: { seconds: timeoutSeconds, from },
      },
    },
  ];
}

/**
 * Whether a task may hold durable timers of its own: a WAIT, or an attempt whose definition sets
 * one of the timeouts `attemptTimers` arms. An ended task's timers are dropped only then, which
 * spares a step of the common definition (no timeouts) a DELETE that finds nothing. A timer
 * armed under settings changed since is still harmless: it fires, finds its task ended, and is
 * ignored.
 */
export function mayHoldTaskTimers(task: TaskRecord, taskDefs: ReadonlyMap<string, TaskDef>): boolean {
  if (task.taskType === 'WAIT') return true;
  const config = effectiveTaskDef(task.workflowTask, taskDefs);
  return (config.pollTimeoutSeconds ?? 0) > 0 || config.timeoutSeconds > 0 || config.totalTimeoutSeconds > 0;
}
