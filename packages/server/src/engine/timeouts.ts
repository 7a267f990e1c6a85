import { isTerminalTaskStatus, type TaskRecord, type TaskStatus } from '@baton/protocol';
import { canRetry, retryTask } from './attempts.js';
import { failRun } from './run-end.js';
import type { RunState } from './run-state.js';
import { effectiveTaskDef } from './task-config.js';
import type { FiredTimer, TimerKind } from './types.js';

/**
 * The lifecycle timeouts (docs/design/task-lifecycle.md#timeouts), applied when their durable timer
 * fires:
 *  - RESPONSE_TIMEOUT (lock expiry): the attempt is recorded TIMED_OUT and the next one is
 *    queued at once while retries remain, whatever the timeoutPolicy; with none left it stays
 *    TIMED_OUT, is dead-lettered and times the run out (Conductor's `timeoutTask` + `retry`).
 *  - POLL_TIMEOUT, TASK_TIMEOUT, TOTAL_TIMEOUT: `timeoutPolicy` decides. RETRY: the attempt is
 *    TIMED_OUT and the evaluation retries it while attempts remain (a total timeout leaves none);
 *    TIME_OUT_WF: the run is TIMED_OUT; ALERT_ONLY: an alert on the task and a metric, and the
 *    task keeps waiting.
 *  - WORKFLOW_TIMEOUT: the definition's timeoutPolicy: TIME_OUT_WF times the run out,
 *    ALERT_ONLY records an alert on the run.
 */
export function applyTimeout(
  state: RunState,
  timer: FiredTimer,
  task: TaskRecord | undefined,
): 'ignored' | 'changed' {
  if (timer.kind === 'WORKFLOW_TIMEOUT') return workflowTimeout(state, timer);
  if (!task) return 'ignored';
  // A WAIT has no queue; its task definition's timeoutSeconds still holds (armed by the kind).
  if (task.taskType === 'WAIT' && timer.kind === 'TASK_TIMEOUT') {
    if (isTerminalTaskStatus(task.status)) return 'ignored';
    return policyTimeout(state, task, timer, 'not completed within timeoutSeconds');
  }
  if (task.queueName === undefined) return 'ignored';
  switch (timer.kind) {
    case 'RESPONSE_TIMEOUT':
      return responseTimeout(state, task, timer);
    case 'POLL_TIMEOUT':
      // Polled already (or back from a callback): the poll timeout no longer applies.
      if (task.status !== 'SCHEDULED' || task.pollCount > 0) return 'ignored';
      return policyTimeout(state, task, timer, 'no poll within pollTimeoutSeconds');
    case 'TASK_TIMEOUT':
      return policyTimeout(state, task, timer, 'not completed within timeoutSeconds');
    case 'TOTAL_TIMEOUT':
      return policyTimeout(state, task, timer, 'attempts took longer than totalTimeoutSeconds');
    case 'WAIT':
    case 'CONTINUE':
    case 'START_RUN':
      return 'ignored';
  }
}

function seconds(timer: FiredTimer, task: TaskRecord): number {
  const value = timer.payload?.seconds;
  if (typeof value === 'number') return value;
  return timer.kind === 'RESPONSE_TIMEOUT' ? task.responseTimeoutSeconds : 0;
}

function responseTimeout(state: RunState, task: TaskRecord, timer: FiredTimer): 'ignored' | 'changed' {
  // Only the hand-out that armed it: a task back on its queue, or handed out again since, is not timed out.
  if (task.status !== 'IN_PROGRESS') return 'ignored';
  const pollCount = timer.payload?.pollCount;
  if (typeof pollCount === 'number' && pollCount !== task.pollCount) return 'ignored';
  const worker =
    typeof timer.payload?.workerId === 'string' ? timer.payload.workerId : (task.workerId ?? 'unknown');
  const reason = `no result within responseTimeoutSeconds (${seconds(timer, task)}s) from worker ${worker}`;
  const timedOut = endAttempt(state, task, 'TIMED_OUT', reason);
  // The next attempt at once, not after the retry delay: the work only changes hands. A paused
  // run schedules nothing: the evaluation retries it when the run resumes. With none left the
  // evaluation dead-letters it and times the run out (unless optional), as Conductor's
  // `DeciderService.retry` does for a TIMED_OUT task.
  if (canRetry(state, timedOut, 0) && state.run.status === 'RUNNING') retryTask(state, timedOut, 0);
  return 'changed';
}

/** `missed` names the limit; the reason adds its seconds. */
function policyTimeout(
  state: RunState,
  task: TaskRecord,
  timer: FiredTimer,
  missed: string,
): 'ignored' | 'changed' {
  const reason = `${missed} (${seconds(timer, task)}s)`;
  const config = effectiveTaskDef(task.workflowTask, state.ctx.taskDefs);
  switch (config.timeoutPolicy) {
    case 'ALERT_ONLY':
      alertOnTask(state, task, timer.kind, `Task ${task.referenceTaskName} timed out: ${reason}`);
      return 'changed';
    case 'TIME_OUT_WF': {
      const ended = endAttempt(state, task, 'TIMED_OUT', reason);
      const acted = state.updateTask(ended, { executed: true });
      failRun(state, 'TIMED_OUT', `Task ${task.referenceTaskName} timed out: ${reason}`, acted);
      return 'changed';
    }
    case 'RETRY':
      endAttempt(state, task, 'TIMED_OUT', reason);
      return 'changed';
  }
}

/** Ends an open attempt with a timeout status and takes its message off the queue. */
function endAttempt(state: RunState, task: TaskRecord, status: TaskStatus, reason: string): TaskRecord {
  const now = state.now;
  state.command({ type: 'DEQUEUE', taskId: task.taskId });
  return state.updateTask(task, {
    status,
    reasonForIncompletion: reason,
    endTime: now,
    updateTime: now,
  });
}

function alertOnTask(state: RunState, task: TaskRecord, kind: TimerKind, message: string): void {
  const now = state.now;
  state.updateTask(task, {
    alerts: [...(task.alerts ?? []), { kind, time: now, message }],
    updateTime: now,
  });
  state.command({
    type: 'ALERT',
    alert: {
      kind,
      workflowId: state.run.workflowId,
      workflowName: state.run.workflowName,
      taskId: task.taskId,
      taskRef: task.referenceTaskName,
      taskType: task.taskType,
      message,
    },
  });
}

function workflowTimeout(state: RunState, timer: FiredTimer): 'ignored' | 'changed' {
  const def = state.run.workflowDefinition;
  const configured =
    typeof timer.payload?.seconds === 'number' ? timer.payload.seconds : (def.timeoutSeconds ?? 0);
  const from = typeof timer.payload?.from === 'number' ? timer.payload.from : state.run.createTime;
  const elapsed = Math.floor((state.now - from) / 1000);
  const policy = def.timeoutPolicy ?? 'TIME_OUT_WF';
  // Conductor's wording (`DeciderService.checkWorkflowTimeout`).
  const message = `Workflow timed out after ${elapsed} seconds. Timeout configured as ${configured} seconds. Timeout policy configured to ${policy}`;
  if (policy === 'ALERT_ONLY') {
    const now = state.now;
    state.updateRun({
      alerts: [...(state.run.alerts ?? []), { kind: 'WORKFLOW_TIMEOUT', time: now, message }],
    });
    state.command({
      type: 'ALERT',
      alert: {
        kind: 'WORKFLOW_TIMEOUT',
        workflowId: state.run.workflowId,
        workflowName: state.run.workflowName,
        message,
      },
    });
    return 'changed';
  }
  failRun(state, 'TIMED_OUT', message);
  return 'changed';
}
