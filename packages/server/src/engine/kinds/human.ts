import type { JsonObject, ValidationError } from '@baton/protocol';
import type { TaskKind } from './kind.js';
import { completeFromOutside } from './waiting-explanation.js';
import { endBySignal } from './signal-end.js';
import { fieldProblem, resolvedInput, systemTask } from './system-task.js';

/**
 * HUMAN (Conductor's `Human`): IN_PROGRESS until completed from outside, by name
 * (`POST /api/tasks/{workflowId}/{ref}/{status}`, whose body is merged into its output) or by
 * id (`POST /api/tasks`), or by a signal (which ends it with the signal's status and payload).
 * `instructions` (the name of an instruction text) and `assignee`, given
 * on the task or in its `inputParameters`, are recorded in its input; when `instructions` names a
 * registered instruction text, the input carries that text (and the name as `instructionsName`).
 */

const FIELDS = ['instructions', 'assignee'] as const;

export const humanKind: TaskKind = {
  kind: 'HUMAN',
  retryable: false,
  waiting: {
    explain(task) {
      const assignee = task.inputData.assignee;
      return {
        reason: 'external',
        message: `waiting: for ${typeof assignee === 'string' ? assignee : 'a person'} to complete it (${completeFromOutside(task)}, or a signal)`,
        ...(typeof assignee === 'string' && { assignee }),
      };
    },
  },
  schedule(sctx, node, request) {
    const taskId = sctx.ctx.newId();
    const input: JsonObject = resolvedInput(sctx, node, taskId);
    for (const field of FIELDS) {
      const value: unknown = node[field];
      if (typeof value === 'string' && !Object.hasOwn(input, field)) input[field] = value;
    }
    // `instructions` names an instruction text: the task carries the text (its latest version).
    const named = input.instructions;
    const text = typeof named === 'string' ? sctx.ctx.instructions?.[named] : undefined;
    if (typeof named === 'string' && text !== undefined) {
      input.instructionsName = named;
      input.instructions = text;
    }
    const task = systemTask(sctx, node, request, { taskId, status: 'IN_PROGRESS', inputData: input });
    return { ok: true, tasks: [task], commands: [] };
  },
  check(node, path) {
    const errors: ValidationError[] = [];
    for (const field of FIELDS) {
      const value: unknown = node[field];
      if (value !== undefined && value !== null && typeof value !== 'string')
        errors.push(fieldProblem(path, field, node, `${field} must be a string`, value));
    }
    return errors;
  },
  onSignal(state, task, signal) {
    if (task.status !== 'IN_PROGRESS') return 'ignored';
    return endBySignal(state, task, signal);
  },
};
