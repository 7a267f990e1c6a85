import type { JsonObject } from '@baton/protocol';
import type { TaskKind } from './kind.js';
import { scheduleCompleted } from './system-task.js';
import { copyWith } from '../../copy-with.js';

/**
 * SET_VARIABLE (Conductor's `SetVariable`): merges every input key into `workflow.variables`.
 * When the variables would exceed 256 KB (serialized), nothing changes and the task fails
 * with Conductor's message.
 */

export const MAX_VARIABLES_KB = 256;

function merged(variables: JsonObject, input: JsonObject): JsonObject {
  return copyWith(variables, input);
}

function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length;
}

export const setVariableKind: TaskKind = {
  kind: 'SET_VARIABLE',
  retryable: false,
  // Ends in the decision that makes it: seen open only when something outside completes it.
  waiting: 'outside',
  schedule: (sctx, node, request) => scheduleCompleted(sctx, node, request),
  // The size is checked as soon as the task exists, so an oversized one fails instead of ending.
  onScheduled(flow, task) {
    const state = flow.state;
    const size = utf8Length(JSON.stringify(merged(state.run.variables, task.inputData)));
    if (size > MAX_VARIABLES_KB * 1024) {
      state.updateTask(task, {
        status: 'FAILED_WITH_TERMINAL_ERROR',
        reasonForIncompletion: `The variables payload size: ${size} of workflow: ${state.run.workflowId} is greater than the permissible limit: ${MAX_VARIABLES_KB} kilobytes`,
      });
    }
  },
  // Applied when acted on, before what follows is scheduled; a run re-walked from copied tasks
  // applies them again, in order.
  onSuccess(flow, task) {
    flow.state.updateRun({ variables: merged(flow.state.run.variables, task.inputData) });
    flow.continueAfter(task);
  },
  check: () => [],
};
