import type { TaskKind } from './kind.js';
import { jacksonJqRewrite } from './jq-dialect.js';
import { finish, isRunTimeValue, requiredInput, startedSystemTask } from './system-task.js';

/**
 * JSON_JQ_TRANSFORM (Conductor's `JsonJqTransform`): runs the jq filter
 * `inputParameters.queryExpression` (real jq) on the task input. Output `result` (the first
 * value; null when none) and `resultList` (every value). An error fails the task with output
 * `{error}`.
 */
export const jsonJqTransformKind: TaskKind = {
  kind: 'JSON_JQ_TRANSFORM',
  retryable: false,
  // Ends in the decision that makes it: seen open only when something outside completes it.
  waiting: 'outside',
  schedule(sctx, workflowTask, request) {
    const task = startedSystemTask(sctx, workflowTask, 'JSON_JQ_TRANSFORM', request);
    const filter = task.inputData.queryExpression;
    if (typeof filter !== 'string' || filter.trim() === '') {
      const reason = "Missing 'queryExpression' in input parameters";
      return { ok: true, tasks: [finish(task, 'FAILED', { error: reason }, reason)], commands: [] };
    }
    const outcome = sctx.ctx.scripts.jq(filter, task.inputData);
    const ended = outcome.ok
      ? finish(task, 'COMPLETED', { result: outcome.value[0] ?? null, resultList: outcome.value })
      : finish(task, 'FAILED', { error: outcome.error }, outcome.error);
    return { ok: true, tasks: [ended], commands: [] };
  },
  check(workflowTask, path, cctx) {
    const { value: filter, problem } = requiredInput(workflowTask, 'queryExpression', path);
    if (problem) return [problem];
    if (filter === undefined || isRunTimeValue(filter)) return [];
    const compile = cctx.scripts.checkJq(filter);
    if (compile === undefined) return [];
    // A filter written for Conductor's jackson-jq: say the rewrite jq takes, when there is one.
    const rewrite = jacksonJqRewrite(filter);
    const hint =
      rewrite !== undefined && cctx.scripts.checkJq(rewrite) === undefined
        ? ` (jq, unlike Conductor's jackson-jq, needs an object value that is an operation in parentheses: write ${rewrite})`
        : '';
    return [
      {
        path: `${path}.inputParameters.queryExpression`,
        message: `the jq filter of JSON_JQ_TRANSFORM task ${workflowTask.taskReferenceName} does not compile: ${compile}${hint}`,
        invalidValue: filter,
      },
    ];
  },
};
