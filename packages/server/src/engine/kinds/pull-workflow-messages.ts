import type { JsonObject, TaskRecord, ValidationError, WorkflowMessage } from '@baton/protocol';
import { resolveParameters } from '../expressions.js';
import type { RunState } from '../run-state.js';
import { systemTaskRecord } from '../task-record.js';
import type { Command } from '../types.js';
import type { TaskKind } from './kind.js';
import { copyWith } from '../../copy-with.js';

/**
 * PULL_WORKFLOW_MESSAGES: takes up to `batchSize` messages (default 1, at most 100) from the
 * run's mailbox, oldest first, and completes with `{messages, count}` (Conductor's shape).
 * With an empty mailbox a `blocking` task (the default) stays IN_PROGRESS until messages
 * arrive (`onMailbox`) or a signal wakes it; a non-blocking one completes with none.
 * Taken messages leave the mailbox in the same transaction (`TAKE_MESSAGES`).
 */

export const MAX_PULL_BATCH = 100;

interface PullSettings {
  readonly batchSize: number;
  readonly blocking: boolean;
}

function settingsOf(input: JsonObject): PullSettings {
  const size = input.batchSize;
  const batchSize =
    typeof size === 'number' && Number.isInteger(size) && size > 0 ? Math.min(size, MAX_PULL_BATCH) : 1;
  return { batchSize, blocking: input.blocking !== false };
}

function messagesOutput(messages: readonly WorkflowMessage[]): JsonObject {
  return {
    messages: messages.map((m) => ({
      id: m.id,
      workflowId: m.workflowId,
      payload: m.payload,
      receivedAt: m.receivedAt,
    })),
    count: messages.length,
  };
}

/** Takes what the mailbox holds for an open, blocked task; 'ignored' when it is empty. */
function takeInto(state: RunState, task: TaskRecord): 'ignored' | 'changed' {
  const available = state.availableMessages();
  if (available.length === 0) return 'ignored';
  const taken = available.slice(0, settingsOf(task.inputData).batchSize);
  state.command({ type: 'TAKE_MESSAGES', messageIds: taken.map((m) => m.id) });
  state.updateTask(task, {
    status: 'COMPLETED',
    outputData: messagesOutput(taken),
    endTime: state.now,
    updateTime: state.now,
  });
  return 'changed';
}

export const pullWorkflowMessagesKind: TaskKind = {
  kind: 'PULL_WORKFLOW_MESSAGES',
  retryable: false,
  waiting: {
    explain(task) {
      const id = task.workflowInstanceId;
      return {
        reason: 'messages',
        message: `waiting: for messages (POST /api/workflow/${id}/messages) or a signal (POST /api/workflow/${id}/signal)`,
      };
    },
  },
  schedule(sctx, workflowTask) {
    const { ctx, run } = sctx;
    const taskId = ctx.newId();
    const inputData = resolveParameters(workflowTask.inputParameters ?? {}, sctx.expressionDocument(), {
      taskId,
    });
    const settings = settingsOf(inputData);
    const available = sctx.availableMessages();
    const commands: Command[] = [];
    const base = { taskId, seq: sctx.nextSeq, now: ctx.now, inputData };
    if (available.length === 0 && settings.blocking) {
      return {
        ok: true,
        tasks: [systemTaskRecord(run, workflowTask, copyWith(base, { status: 'IN_PROGRESS' }))],
        commands,
      };
    }
    const taken = available.slice(0, settings.batchSize);
    if (taken.length > 0) commands.push({ type: 'TAKE_MESSAGES', messageIds: taken.map((m) => m.id) });
    const task = systemTaskRecord(
      run,
      workflowTask,
      copyWith(base, { status: 'COMPLETED', outputData: messagesOutput(taken) }),
    );
    return { ok: true, tasks: [task], commands };
  },
  check(workflowTask, path): ValidationError[] {
    const errors: ValidationError[] = [];
    const params = workflowTask.inputParameters ?? {};
    const size = params.batchSize;
    if (
      size !== undefined &&
      typeof size !== 'string' &&
      !(typeof size === 'number' && Number.isInteger(size) && size >= 1 && size <= MAX_PULL_BATCH)
    ) {
      errors.push({
        path: `${path}.inputParameters.batchSize`,
        message: `must be an integer from 1 to ${MAX_PULL_BATCH} (or an expression)`,
        invalidValue: size,
      });
    }
    const blocking = params.blocking;
    if (blocking !== undefined && typeof blocking !== 'boolean' && typeof blocking !== 'string') {
      errors.push({
        path: `${path}.inputParameters.blocking`,
        message: 'must be a boolean (or an expression)',
        invalidValue: blocking,
      });
    }
    return errors;
  },
  onMailbox: (state, task) => takeInto(state, task),
  onSignal: (state, task) => takeInto(state, task),
};
