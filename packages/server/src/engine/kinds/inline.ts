import type { JsonValue, ValidationError } from '@baton/protocol';
import type { TaskKind } from './kind.js';
import { finish, isRunTimeValue, requiredInput, startedSystemTask } from './system-task.js';

/**
 * INLINE (Conductor's `Inline`): evaluates `inputParameters.expression` with `$` bound to the
 * task input. `evaluatorType` `javascript` (default; `graaljs` is the same) runs it in the
 * script sandbox; `value-param` answers `$[expression]`. Output `{result}`. A script error
 * fails the task for good (FAILED_WITH_TERMINAL_ERROR) with output `{error}`; a missing
 * expression or an unknown evaluator fails it (FAILED).
 */

const JAVASCRIPT = new Set(['javascript', 'graaljs']);
const EVALUATORS = ['javascript', 'graaljs', 'value-param'];

export const inlineKind: TaskKind = {
  kind: 'INLINE',
  retryable: false,
  // Ends in the decision that makes it: seen open only when something outside completes it.
  waiting: 'outside',
  schedule(sctx, workflowTask, request) {
    const task = startedSystemTask(sctx, workflowTask, 'INLINE', request);
    const input = task.inputData;
    const evaluatorType = input.evaluatorType ?? 'javascript';
    const expression = input.expression;
    if (typeof evaluatorType !== 'string' || typeof expression !== 'string' || expression.trim() === '') {
      const reason =
        "Empty 'evaluatorType' or 'expression' in INLINE task's input parameters. A non-empty String value must be provided.";
      return { ok: true, tasks: [finish(task, 'FAILED', { error: reason }, reason)], commands: [] };
    }
    if (evaluatorType === 'value-param') {
      const value: JsonValue = Object.hasOwn(input, expression) ? (input[expression] ?? null) : null;
      return { ok: true, tasks: [finish(task, 'COMPLETED', { result: value })], commands: [] };
    }
    if (!JAVASCRIPT.has(evaluatorType)) {
      const reason = `Unknown evaluator '${evaluatorType}' in INLINE task.`;
      return { ok: true, tasks: [finish(task, 'FAILED', { error: reason }, reason)], commands: [] };
    }
    const outcome = sctx.ctx.scripts.javascript(expression, input);
    const ended = outcome.ok
      ? finish(task, 'COMPLETED', { result: outcome.value })
      : finish(task, 'FAILED_WITH_TERMINAL_ERROR', { error: outcome.error }, outcome.error);
    return { ok: true, tasks: [ended], commands: [] };
  },
  check(workflowTask, path, cctx) {
    const errors: ValidationError[] = [];
    const evaluatorType: unknown = workflowTask.inputParameters?.evaluatorType ?? 'javascript';
    if (
      typeof evaluatorType !== 'string' ||
      (!isRunTimeValue(evaluatorType) && !EVALUATORS.includes(evaluatorType))
    ) {
      errors.push({
        path: `${path}.inputParameters.evaluatorType`,
        message: `evaluatorType must be one of ${EVALUATORS.join(', ')} for taskType: INLINE taskName: ${workflowTask.name}`,
        invalidValue: evaluatorType,
      });
    }
    const { value: expression, problem } = requiredInput(workflowTask, 'expression', path);
    if (problem) errors.push(problem);
    if (
      expression !== undefined &&
      typeof evaluatorType === 'string' &&
      JAVASCRIPT.has(evaluatorType) &&
      !isRunTimeValue(expression)
    ) {
      const syntax = cctx.scripts.checkJavascript(expression);
      if (syntax !== undefined) {
        errors.push({
          path: `${path}.inputParameters.expression`,
          message: `the script of INLINE task ${workflowTask.taskReferenceName} does not parse: ${syntax}`,
          invalidValue: expression,
        });
      }
    }
    return errors;
  },
};
