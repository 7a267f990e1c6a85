import {
  isTerminalTaskStatus,
  type JsonObject,
  type JsonValue,
  type TaskRecord,
  type ValidationError,
  type WorkflowTask,
} from '@baton/protocol';
import { resolveParameters, resolveValue } from '../expressions.js';
import { walkTasks } from '../graph.js';
import { iterationOf, iterationSuffix, suffixOf } from '../scope.js';
import type { Flow } from './flow.js';
import type { TaskKind } from './kind.js';
import {
  fieldProblem,
  isExpression,
  isPlainObject,
  requiredField,
  resolvedInput,
  systemTask,
} from './system-task.js';
import { assembledOutputRefusal, failForAssembledOutput } from '../payload-bounds.js';
import { copyWith } from '../../copy-with.js';

/**
 * DO_WHILE (Conductor's `DoWhile`): runs `loopOver` once, then again while `loopCondition`
 * holds. Iteration N's tasks get refs `ref__N` (`iteration` N). The loop task stays
 * IN_PROGRESS; its `iteration` is the current one and its output gains `"N": {ref: output}`
 * for each finished iteration (only the last `keepLastN` kept when that input is set) and
 * `iteration`. With `items` (or input `_items`), it runs once per item, with `loopIndex`
 * (0-based) and `loopItem` in its output, while items remain (and `loopCondition`, if any,
 * holds); no items: COMPLETED with `iteration: 0`.
 *
 * An iteration ends when the last task of `loopOver` has ended (the `branch-end` of the list):
 * that costs what the iteration touched, never what earlier iterations did.
 */

function itemsOf(task: TaskRecord): JsonValue[] | undefined {
  const items: unknown = task.inputData.items;
  return Array.isArray(items) ? (items as JsonValue[]) : undefined;
}

function loopOverOf(node: WorkflowTask): WorkflowTask[] {
  return Array.isArray(node.loopOver) ? node.loopOver : [];
}

/** Output entries of the iteration about to run: its number, and its item in list mode. */
function iterationOutput(n: number, items: JsonValue[] | undefined): JsonObject {
  if (!items) return { iteration: n };
  return { iteration: n, loopIndex: n - 1, loopItem: items[n - 1] ?? null };
}

function keepLastN(task: TaskRecord): number | undefined {
  const value: unknown = task.inputData.keepLastN;
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

/** Every definition node inside the loop body, nested ones included (Conductor's `has`). */
function bodyNodes(node: WorkflowTask): WorkflowTask[] {
  const nodes: WorkflowTask[] = [];
  walkTasks(loopOverOf(node), (task) => {
    if (isPlainObject(task) && typeof task.taskReferenceName === 'string') nodes.push(task as WorkflowTask);
  });
  return nodes;
}

function startIteration(flow: Flow, loop: TaskRecord): void {
  const first = loopOverOf(loop.workflowTask)[0];
  if (first) flow.schedule(first, iterationSuffix(suffixOf(loop), loop.iteration));
}

function endIteration(flow: Flow, loop: TaskRecord, ended: TaskRecord): void {
  const state = flow.state;
  const n = loop.iteration;
  if (isTerminalTaskStatus(loop.status) || iterationOf(suffixOf(ended)) !== n) return;
  const node = loop.workflowTask;
  const childSuffix = iterationSuffix(suffixOf(loop), n);
  const doc = state.expressionDocument();
  const iterationOutputs: JsonObject = {};
  const latestOutputs: JsonObject = {};
  for (const inner of bodyNodes(node)) {
    const ref = inner.taskReferenceName;
    const task = state.latestByRef(ref + childSuffix);
    if (task) iterationOutputs[ref] = task.outputData;
    // The latest output of every body task, from whichever iteration last ran it.
    const view: unknown = doc[ref];
    if (isPlainObject(view) && isPlainObject(view.output)) latestOutputs[ref] = view.output as JsonObject;
  }
  const output: JsonObject = copyWith(loop.outputData, { [String(n)]: iterationOutputs, iteration: n });
  const keep = keepLastN(loop);
  if (keep !== undefined) delete output[String(n - keep)];
  const refusal = assembledOutputRefusal(state, loop, output);
  if (refusal !== undefined) {
    failForAssembledOutput(state, loop, refusal);
    return;
  }

  const items = itemsOf(loop);
  const conditionInput: JsonObject = copyWith(
    resolveParameters(withoutItems(node.inputParameters), doc, { taskId: loop.taskId }),
    copyWith(latestOutputs, { [node.taskReferenceName]: output }),
  );
  if (items) {
    conditionInput.loopIndex = n - 1;
    conditionInput.loopItem = items[n - 1] ?? null;
  }
  let more: boolean;
  const condition = node.loopCondition;
  if (items && n >= items.length) {
    more = false;
  } else if (typeof condition === 'string' && condition.trim() !== '') {
    const result = state.ctx.scripts.javascript(condition, conditionInput);
    if (!result.ok) {
      state.updateTask(loop, {
        status: 'FAILED_WITH_TERMINAL_ERROR',
        reasonForIncompletion: `Unable to evaluate condition ${condition}, exception ${result.error}`,
        outputData: output,
        endTime: state.now,
        updateTime: state.now,
      });
      return;
    }
    more = isTruthy(result.value);
  } else {
    more = items !== undefined;
  }
  if (!more) {
    state.updateTask(loop, {
      status: 'COMPLETED',
      outputData: output,
      endTime: state.now,
      updateTime: state.now,
    });
    return;
  }
  const next = state.updateTask(loop, {
    iteration: n + 1,
    outputData: copyWith(output, iterationOutput(n + 1, items)),
    updateTime: state.now,
  });
  startIteration(flow, next);
}

function isTruthy(value: JsonValue): boolean {
  if (Array.isArray(value)) return true;
  return Boolean(value);
}

function withoutItems(params: JsonObject | undefined): JsonObject {
  if (!params || !Object.hasOwn(params, '_items')) return params ?? {};
  const { _items: _, ...rest } = params;
  return rest;
}

export const doWhileKind: TaskKind = {
  kind: 'DO_WHILE',
  retryable: false,
  waiting: {
    explain: (task) => ({
      reason: 'loop',
      message: `waiting: for iteration ${task.iteration} of the loop to end`,
      iteration: task.iteration,
    }),
  },
  engineOnly: true,
  schedule(sctx, node, request) {
    const taskId = sctx.ctx.newId();
    const input = resolvedInput(sctx, node, taskId);
    const itemsSource: unknown = node.items ?? node.inputParameters?._items;
    let items: JsonValue[] | undefined;
    if (itemsSource !== undefined && itemsSource !== null) {
      const resolved =
        typeof itemsSource === 'string'
          ? resolveValue(itemsSource, sctx.expressionDocument(), { taskId })
          : (itemsSource as JsonValue);
      if (!Array.isArray(resolved)) {
        const task = systemTask(sctx, node, request, {
          taskId,
          status: 'FAILED_WITH_TERMINAL_ERROR',
          inputData: input,
          reasonForIncompletion: `items of DO_WHILE ${node.taskReferenceName} must be a list, got ${JSON.stringify(resolved)}`,
        });
        return { ok: true, tasks: [task], commands: [] };
      }
      items = resolved;
    }
    const inputData: JsonObject = items ? copyWith(withoutItems(input), { items }) : input;
    const empty = (items !== undefined && items.length === 0) || loopOverOf(node).length === 0;
    const task = systemTask(sctx, node, request, {
      taskId,
      status: empty ? 'COMPLETED' : 'IN_PROGRESS',
      inputData,
      outputData: empty ? { iteration: 0 } : iterationOutput(1, items),
      iteration: empty ? 0 : 1,
    });
    return { ok: true, tasks: [task], commands: [] };
  },
  onScheduled(flow, loop) {
    if (!isTerminalTaskStatus(loop.status)) startIteration(flow, loop);
  },
  onBranchEnd: endIteration,
  check(node, path, cctx) {
    const errors: ValidationError[] = [];
    const condition: unknown = node.loopCondition;
    const hasItems = node.items !== undefined || node.inputParameters?._items !== undefined;
    if (typeof condition !== 'string' || condition.trim() === '') {
      if (!hasItems) errors.push(requiredField(path, 'loopCondition', node));
    } else {
      const error = cctx.scripts.checkJavascript(condition);
      if (error !== undefined)
        errors.push(
          fieldProblem(
            path,
            'loopCondition',
            node,
            `loopCondition is not valid JavaScript: ${error}`,
            condition,
          ),
        );
    }
    const loopOver: unknown = node.loopOver;
    if (!Array.isArray(loopOver) || loopOver.length === 0) errors.push(requiredField(path, 'loopOver', node));
    const items: unknown = node.items;
    if (items !== undefined && items !== null && typeof items !== 'string' && !Array.isArray(items))
      errors.push(fieldProblem(path, 'items', node, 'items must be an expression or a list', items));
    if (typeof items === 'string' && !isExpression(items))
      errors.push(
        fieldProblem(
          path,
          'items',
          node,
          'items must be an expression such as ${workflow.input.list}',
          items,
        ),
      );
    const keep: unknown = node.inputParameters?.keepLastN;
    if (
      keep !== undefined &&
      !isExpression(keep) &&
      !(typeof keep === 'number' && Number.isInteger(keep) && keep >= 1)
    )
      errors.push(
        fieldProblem(path, 'inputParameters.keepLastN', node, 'keepLastN must be an integer >= 1', keep),
      );
    return errors;
  },
};
