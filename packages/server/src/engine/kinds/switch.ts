import type { JsonObject, JsonValue, TaskRecord, ValidationError, WorkflowTask } from '@baton/protocol';
import { suffixOf } from '../scope.js';
import type { Flow } from './flow.js';
import type { CheckContext, ScheduleContext, ScheduleOutcome, ScheduleRequest, TaskKind } from './kind.js';
import {
  fieldProblem,
  isPlainObject,
  javaString,
  requiredField,
  resolvedInput,
  systemTask,
} from './system-task.js';
import { copyWith } from '../../copy-with.js';

/**
 * SWITCH (Conductor's `SwitchTaskMapper`/`Switch`), whose scheduling and branching DECISION
 * shares (`decision.ts`). The task evaluates its case and completes at once; when acted on it
 * schedules the first task of the chosen branch, and when that branch ends the run continues
 * after the switch. An empty branch continues straight away.
 */

const SWITCH_EVALUATORS = ['value-param', 'javascript', 'graaljs'] as const;

type Evaluation = { ok: true; value: JsonValue } | { ok: false; error: string };

function evaluateCase(sctx: ScheduleContext, node: WorkflowTask, input: JsonObject): Evaluation {
  if (node.type === 'DECISION') {
    if (typeof node.caseValueParam === 'string' && node.caseValueParam !== '')
      return { ok: true, value: input[node.caseValueParam] ?? null };
    return runScript(sctx, node.caseExpression ?? '', input);
  }
  const expression = node.expression ?? '';
  switch (node.evaluatorType) {
    case 'value-param':
      return { ok: true, value: input[expression] ?? null };
    case 'javascript':
    case 'graaljs':
      return runScript(sctx, expression, input);
    case undefined:
    default:
      return { ok: false, error: `No evaluator registered for type: ${String(node.evaluatorType)}` };
  }
}

function runScript(sctx: ScheduleContext, script: string, input: JsonObject): Evaluation {
  const result = sctx.ctx.scripts.javascript(script, input);
  return result.ok ? { ok: true, value: result.value } : { ok: false, error: result.error };
}

export function scheduleSwitch(
  sctx: ScheduleContext,
  node: WorkflowTask,
  request: ScheduleRequest,
): ScheduleOutcome {
  if (node.type === 'SWITCH' && !SWITCH_EVALUATORS.includes(node.evaluatorType as 'javascript')) {
    // Conductor terminates the workflow on an unknown evaluator (registration refuses it first).
    return { ok: false, reason: `No evaluator registered for type: ${String(node.evaluatorType)}` };
  }
  const taskId = sctx.ctx.newId();
  const input = resolvedInput(sctx, node, taskId);
  const evaluation = evaluateCase(sctx, node, input);
  if (!evaluation.ok) {
    const task = systemTask(sctx, node, request, {
      taskId,
      status: 'FAILED',
      inputData: input,
      reasonForIncompletion: evaluation.error,
    });
    return { ok: true, tasks: [task], commands: [] };
  }
  const selected = javaString(evaluation.value);
  const outputData: JsonObject =
    node.type === 'DECISION'
      ? { caseOutput: [selected] }
      : { evaluationResult: [selected], selectedCase: selected };
  const task = systemTask(sctx, node, request, {
    taskId,
    status: 'COMPLETED',
    inputData: copyWith(input, { case: selected }),
    outputData,
  });
  return { ok: true, tasks: [task], commands: [] };
}

/**
 * The branch a switch task chose: `decisionCases[case]`, else `defaultCase`. SWITCH takes the
 * default only when the case is absent (an explicitly empty list is a no-op branch); DECISION
 * also when it is empty.
 */
export function selectedBranch(task: TaskRecord): readonly WorkflowTask[] {
  const node = task.workflowTask;
  const output = task.outputData;
  const chosen: unknown =
    node.type === 'DECISION'
      ? Array.isArray(output.caseOutput)
        ? output.caseOutput[0]
        : undefined
      : output.selectedCase;
  const cases: unknown = node.decisionCases;
  const defaultCase = Array.isArray(node.defaultCase) ? node.defaultCase : [];
  if (typeof chosen !== 'string' || !isPlainObject(cases) || !Object.hasOwn(cases, chosen))
    return defaultCase;
  const branch = cases[chosen];
  if (!Array.isArray(branch)) return defaultCase;
  if (branch.length === 0 && node.type === 'DECISION') return defaultCase;
  return branch as WorkflowTask[];
}

/**
 * Conductor's `SwitchTaskMapper`/`DecisionTaskMapper` map the chosen branch's first task together
 * with the switch task, so it comes right after the switch: a switch heading a fork branch has
 * its case's first task before the next branch's (`SwitchTaskSpec`, switch leading to a fork join).
 */
export function onScheduled(flow: Flow, task: TaskRecord): void {
  if (task.status !== 'COMPLETED') return;
  const first = selectedBranch(task)[0];
  if (first) flow.schedule(first, suffixOf(task));
}

/** Acted on: the chosen branch's first task (already made by `onScheduled`), or what follows. */
export function onSuccess(flow: Flow, task: TaskRecord): void {
  const first = selectedBranch(task)[0];
  if (first) flow.schedule(first, suffixOf(task));
  else flow.continueAfter(task);
}

export function checkCases(node: WorkflowTask, path: string): ValidationError[] {
  const cases: unknown = node.decisionCases;
  if (!isPlainObject(cases) || Object.keys(cases).length === 0) {
    return [
      {
        path: `${path}.decisionCases`,
        message: `decisionCases should have atleast one task for taskType: ${String(node.type)} taskName: ${node.name}`,
        ...(cases !== undefined && { invalidValue: cases }),
      },
    ];
  }
  const errors: ValidationError[] = [];
  for (const [name, list] of Object.entries(cases)) {
    if (!Array.isArray(list))
      errors.push(fieldProblem(path, `decisionCases.${name}`, node, 'a case must be a list of tasks', list));
  }
  if (node.defaultCase !== undefined && node.defaultCase !== null && !Array.isArray(node.defaultCase))
    errors.push(
      fieldProblem(path, 'defaultCase', node, 'defaultCase must be a list of tasks', node.defaultCase),
    );
  return errors;
}

export function checkScript(
  script: string,
  field: string,
  node: WorkflowTask,
  path: string,
  cctx: CheckContext,
): ValidationError[] {
  const error = cctx.scripts.checkJavascript(script);
  return error === undefined
    ? []
    : [fieldProblem(path, field, node, `${field} is not valid JavaScript: ${error}`, script)];
}

/** What SWITCH and DECISION share: all but the kind's name and its checks. */
export const switchBehaviour = {
  retryable: false,
  // Ends in the decision that makes it: seen open only when something outside completes it.
  waiting: 'outside',
  schedule: scheduleSwitch,
  onScheduled,
  onSuccess,
  onBranchEnd: (flow, container) => flow.continueAfter(container),
} satisfies Omit<TaskKind, 'kind' | 'check'>;

export const switchKind: TaskKind = {
  kind: 'SWITCH',
  ...switchBehaviour,
  check(node, path, cctx) {
    const errors: ValidationError[] = [];
    const evaluator: unknown = node.evaluatorType;
    if (typeof evaluator !== 'string' || evaluator === '') {
      errors.push(requiredField(path, 'evaluatorType', node));
    } else if (!SWITCH_EVALUATORS.includes(evaluator as 'javascript')) {
      errors.push(
        fieldProblem(
          path,
          'evaluatorType',
          node,
          `No evaluator registered for type: ${evaluator}; use one of ${SWITCH_EVALUATORS.join(', ')}`,
          evaluator,
        ),
      );
    }
    const expression: unknown = node.expression;
    if (typeof expression !== 'string' || expression.trim() === '') {
      errors.push(requiredField(path, 'expression', node));
    } else if (evaluator === 'javascript' || evaluator === 'graaljs') {
      errors.push(...checkScript(expression, 'expression', node, path, cctx));
    }
    errors.push(...checkCases(node, path));
    return errors;
  },
};
