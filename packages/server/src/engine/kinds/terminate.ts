import type { JsonObject, ValidationError, WorkflowStatus } from '@baton/protocol';
import type { TaskKind } from './kind.js';
import {
  fieldProblem,
  isExpression,
  isPlainObject,
  requiredField,
  resolvedInput,
  systemTask,
} from './system-task.js';

/**
 * TERMINATE (Conductor's `Terminate`): the task completes with output `workflowOutput` (a
 * non-object wrapped as `{output: value}`); when acted on, the run ends with
 * `terminationStatus` (COMPLETED, FAILED or TERMINATED), reason `terminationReason` or
 * `Workflow is <STATUS> by TERMINATE task: <taskId>`, output = the task's output, and every
 * open task canceled.
 */

const STATUSES: readonly WorkflowStatus[] = ['COMPLETED', 'FAILED', 'TERMINATED'];

export const terminateKind: TaskKind = {
  kind: 'TERMINATE',
  retryable: false,
  // Ends in the decision that makes it: seen open only when something outside completes it.
  waiting: 'outside',
  schedule(sctx, node, request) {
    const taskId = sctx.ctx.newId();
    const input = resolvedInput(sctx, node, taskId);
    const status = input.terminationStatus;
    if (typeof status !== 'string' || !STATUSES.includes(status as WorkflowStatus)) {
      const task = systemTask(sctx, node, request, {
        taskId,
        status: 'FAILED_WITH_TERMINAL_ERROR',
        inputData: input,
        reasonForIncompletion: `terminationStatus must be one of ${STATUSES.join(', ')}, got ${JSON.stringify(status ?? null)}`,
      });
      return { ok: true, tasks: [task], commands: [] };
    }
    const value = input.workflowOutput;
    const outputData: JsonObject =
      value === undefined || value === null ? {} : isPlainObject(value) ? { ...value } : { output: value };
    const task = systemTask(sctx, node, request, {
      taskId,
      status: 'COMPLETED',
      inputData: input,
      outputData,
    });
    return { ok: true, tasks: [task], commands: [] };
  },
  onSuccess(flow, task) {
    const state = flow.state;
    const status = task.inputData.terminationStatus as WorkflowStatus;
    const reason = task.inputData.terminationReason;
    flow.endRun(
      status,
      typeof reason === 'string' && reason !== ''
        ? reason
        : `Workflow is ${status} by TERMINATE task: ${task.taskId}`,
    );
    state.updateRun({ output: structuredClone(task.outputData) });
  },
  check(node, path) {
    const errors: ValidationError[] = [];
    if (node.optional === true)
      errors.push(fieldProblem(path, 'optional', node, 'a TERMINATE task cannot be optional', true));
    const status: unknown = node.inputParameters?.terminationStatus;
    if (status === undefined || status === null || status === '') {
      errors.push(requiredField(`${path}.inputParameters`, 'terminationStatus', node));
    } else if (!isExpression(status) && !STATUSES.includes(status as WorkflowStatus)) {
      errors.push(
        fieldProblem(
          `${path}.inputParameters`,
          'terminationStatus',
          node,
          `terminationStatus must be one of ${STATUSES.join(', ')}`,
          status,
        ),
      );
    }
    return errors;
  },
};
