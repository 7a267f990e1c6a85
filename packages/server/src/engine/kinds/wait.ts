import {
  isTerminalTaskStatus,
  type JsonObject,
  type TaskRecord,
  type ValidationError,
} from '@baton/protocol';
import { effectiveTaskDef } from '../task-config.js';
import type { Command, TimerKind } from '../types.js';
import { parseDuration, parseUntil } from '../wait-time.js';
import type { TaskKind } from './kind.js';
import { at, completeFromOutside, secondsUntil, type WaitingExplainer } from './waiting-explanation.js';
import { endBySignal } from './signal-end.js';
import { fieldProblem, isExpression, resolvedInput, systemTask } from './system-task.js';

/**
 * WAIT (Conductor's `Wait`): IN_PROGRESS until completed from outside (`POST /api/tasks`,
 * `POST /api/tasks/{workflowId}/{ref}/{status}`, a signal) or, with `duration` or `until`, by a
 * durable `WAIT` timer armed with the task (`onTimer` completes it). A time already past
 * completes it at once.
 *
 * A signal ends only a WAIT without a timer (docs/design/runs.md#messages-and-signals); a
 * timed WAIT is not blocked on outside input, so a signal passes it by and reaches the next
 * blocked task. (Conductor's signal takes any open WAIT; ending a timed WAIT early stays
 * possible by completing it by id or by name.)
 */

function display(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export const BOTH_DURATION_AND_UNTIL = "Both 'duration' and 'until' specified. Please provide only one input";

/** Whether this WAIT task armed a timer (it did when it has a `duration` or `until`). */
export function hasWaitTimer(task: TaskRecord): boolean {
  return task.taskType === 'WAIT' && !isTerminalTaskStatus(task.status) && task.callbackAfterSeconds > 0;
}

/** A WAIT with a time waits for its timer; one without, for outside or a signal. */
const waitWaiting: WaitingExplainer = {
  // Only a WAIT's timer says what it waits for (a worker's response deadline is its lock).
  needs: () => ({ timers: true }),
  explain(task, facts, now) {
    if (task.callbackAfterSeconds > 0) {
      const timer = facts.timers?.find((t) => t.kind === 'WAIT');
      const until = timer?.dueAt ?? task.startTime + task.callbackAfterSeconds * 1000;
      return {
        reason: 'timer',
        message: `waiting: until ${at(until)} (in ${secondsUntil(until, now)} s), then it completes by itself`,
        until,
      };
    }
    return {
      reason: 'external',
      message: `waiting: to be completed from outside (${completeFromOutside(task)}) or by a signal (POST /api/workflow/${task.workflowInstanceId}/signal)`,
    };
  },
};

export const waitKind: TaskKind = {
  kind: 'WAIT',
  // Conductor retries a WAIT its task definition times out under timeoutPolicy RETRY (or that
  // failed) while its retryCount allows; one without a task definition is never retried.
  retryable: true,
  retriesNeedTaskDefinition: true,
  waiting: waitWaiting,
  schedule(sctx, node, request) {
    const { ctx } = sctx;
    const taskId = ctx.newId();
    // A new attempt waits out the retry delay SCHEDULED, as Conductor's retried WAIT sits in its queue.
    const delayMs = request.retryOf ? Math.max(0, request.delayMs ?? 0) : 0;
    const startAt = ctx.now + delayMs;
    const input = resolvedInput(sctx, node, taskId);
    const duration = input.duration;
    const until = input.until;
    const given = (value: unknown) => value !== undefined && value !== null && value !== '';
    const fail = (reason: string) => ({
      ok: true as const,
      tasks: [
        systemTask(sctx, node, request, {
          taskId,
          status: 'FAILED_WITH_TERMINAL_ERROR',
          inputData: input,
          reasonForIncompletion: reason,
        }),
      ],
      commands: [],
    });
    if (given(duration) && given(until)) return fail(BOTH_DURATION_AND_UNTIL);
    let dueAt: number | undefined;
    if (given(duration)) {
      const ms = typeof duration === 'string' ? parseDuration(duration) : undefined;
      if (ms === undefined) return fail(`Not valid duration: ${display(duration)}`);
      dueAt = startAt + ms;
    } else if (given(until)) {
      const at = typeof until === 'string' ? parseUntil(until) : undefined;
      if (at === undefined)
        return fail(`Invalid/Unsupported Wait Until format.  Provided: ${display(until)}`);
      dueAt = at;
    }
    if (dueAt !== undefined && dueAt <= ctx.now) {
      const task = systemTask(sctx, node, request, { taskId, status: 'COMPLETED', inputData: input });
      return { ok: true, tasks: [task], commands: [] };
    }
    const task = systemTask(sctx, node, request, {
      taskId,
      status: delayMs > 0 ? 'SCHEDULED' : 'IN_PROGRESS',
      inputData: input,
      ...(dueAt !== undefined && { callbackAfterSeconds: Math.ceil((dueAt - ctx.now) / 1000) }),
    });
    const commands: Command[] = [];
    const arm = (kind: TimerKind, at: number, payload?: JsonObject) =>
      commands.push({
        type: 'ARM_TIMER',
        timer: { timerId: ctx.newId(), kind, dueAt: at, taskId, ...(payload && { payload }) },
      });
    if (delayMs > 0) arm('WAIT', startAt);
    if (dueAt !== undefined) arm('WAIT', dueAt);
    // The task definition's timeoutSeconds holds for a WAIT too (Conductor's checkTaskTimeout):
    // counted from when the attempt starts waiting; timeoutPolicy decides (`timeouts.ts`).
    const config = effectiveTaskDef(node, ctx.taskDefs);
    if (config.definition !== undefined && config.timeoutSeconds > 0)
      arm('TASK_TIMEOUT', startAt + config.timeoutSeconds * 1000, { seconds: config.timeoutSeconds });
    return { ok: true, tasks: [task], commands };
  },
  onTimer(state, task) {
    // A new attempt's retry delay is over: it starts waiting.
    if (task.status === 'SCHEDULED') {
      state.updateTask(task, { status: 'IN_PROGRESS', startTime: state.now, updateTime: state.now });
      return 'changed';
    }
    if (task.status !== 'IN_PROGRESS' || !hasWaitTimer(task)) return 'ignored';
    state.updateTask(task, { status: 'COMPLETED', endTime: state.now, updateTime: state.now });
    return 'changed';
  },
  onSignal(state, task, signal) {
    if (task.status !== 'IN_PROGRESS' || task.callbackAfterSeconds > 0) return 'ignored';
    return endBySignal(state, task, signal);
  },
  check(node, path) {
    const errors: ValidationError[] = [];
    const params = node.inputParameters ?? {};
    const duration: unknown = params.duration;
    const until: unknown = params.until;
    const at = `${path}.inputParameters`;
    if (duration !== undefined && duration !== null && until !== undefined && until !== null)
      errors.push(fieldProblem(at, 'until', node, BOTH_DURATION_AND_UNTIL, until));
    if (duration !== undefined && duration !== null && !isExpression(duration)) {
      if (typeof duration !== 'string' || parseDuration(duration) === undefined)
        errors.push(fieldProblem(at, 'duration', node, `Not valid duration: ${display(duration)}`, duration));
    }
    if (until !== undefined && until !== null && !isExpression(until)) {
      if (typeof until !== 'string' || parseUntil(until) === undefined)
        errors.push(fieldProblem(at, 'until', node, `Unable to parse date ${display(until)}`, until));
    }
    return errors;
  },
};
