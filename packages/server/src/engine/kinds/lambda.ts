import type { TaskKind } from './kind.js';
import { finish, isRunTimeValue, requiredInput, startedSystemTask } from './system-task.js';

/**
 * LAMBDA (Conductor's legacy `Lambda`): `inputParameters.scriptExpression` is a function body,
 * run as `function scriptFun(){<script>} scriptFun();` with `$` bound to the task input.
 * Output `{result}`; an error fails the task with output `{error}`.
 */

function wrap(script: string): string {
  return `function scriptFun(){${script}\n} scriptFun();`;
}

export const lambdaKind: TaskKind = {
  kind: 'LAMBDA',
  retryable: false,
  // Ends in the decision that makes it: seen open only when something outside completes it.
  waiting: 'outside',
  schedule(sctx, workflowTask, request) {
    const task = startedSystemTask(sctx, workflowTask, 'LAMBDA', request);
    const script = task.inputData.scriptExpression;
    if (typeof script !== 'string' || script.trim() === '') {
      const reason =
        "Empty 'scriptExpression' in Lambda task's input parameters. A non-empty String value must be provided.";
      return { ok: true, tasks: [finish(task, 'FAILED', { error: reason }, reason)], commands: [] };
    }
    const outcome = sctx.ctx.scripts.javascript(wrap(script), task.inputData);
    const ended = outcome.ok
      ? finish(task, 'COMPLETED', { result: outcome.value })
      : finish(task, 'FAILED', { error: outcome.error }, outcome.error);
    return { ok: true, tasks: [ended], commands: [] };
  },
  check(workflowTask, path, cctx) {
    const { value: script, problem } = requiredInput(workflowTask, 'scriptExpression', path);
    if (problem) return [problem];
    if (script === undefined || isRunTimeValue(script)) return [];
    const syntax = cctx.scripts.checkJavascript(wrap(script));
    if (syntax === undefined) return [];
    return [
      {
        path: `${path}.inputParameters.scriptExpression`,
        message: `the script of LAMBDA task ${workflowTask.taskReferenceName} does not parse: ${syntax}`,
        invalidValue: script,
      },
    ];
  },
};
