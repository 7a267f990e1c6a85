import type { JsonObject, JsonValue, TaskRecord, ValidationError, WorkflowTask } from '@baton/protocol';
import { childTaskLists, kindNameOf } from '../graph.js';
import { suffixOf } from '../scope.js';
import { joinAfter } from './fork.js';
import type { Flow } from './flow.js';
import type { TaskKind } from './kind.js';
import {
  fieldProblem,
  isPlainObject,
  javaMapString,
  requiredField,
  resolvedInput,
  systemTask,
} from './system-task.js';
import { copyWith } from '../../copy-with.js';

/**
 * FORK_JOIN_DYNAMIC (Conductor's `ForkJoinDynamicTaskMapper`): the branches are known only at
 * run time, from the task's input, in one of three forms:
 *  (a) `dynamicForkTasksParam` names an input key holding a list of workflow tasks, and
 *      `dynamicForkTasksInputParamName` one holding a map `ref → input`;
 *  (b) legacy `dynamicForkJoinTasksParam` names a key holding `{dynamicTasks: [{taskName,
 *      referenceName, type, input, workflowName}]}`;
 *  (c) input `forkTaskName` (+ `forkTaskType`, default SIMPLE) and a list `forkTaskInputs`: one
 *      task per item, refs `_<forkTaskName>_<i>`, each input with `__index: i`.
 * The `FORK` task keeps the refs (`forkedTasks`) and the tasks (`forkedTaskDefs`) in its input;
 * when acted on it schedules each, then the JOIN that follows, waiting on all of them.
 * Each forked task is one step (no container kinds): what follows it is the JOIN.
 */

export const DYNAMIC_FORK_NOT_FOLLOWED_BY_JOIN =
  'Dynamic join definition is not followed by a join task.  Check the workflow definition.';

type Forked = { ok: true; tasks: WorkflowTask[] } | { ok: false; reason: string };

function fromTaskList(node: WorkflowTask, input: JsonObject): Forked {
  const listKey = node.dynamicForkTasksParam ?? '';
  const inputKey = node.dynamicForkTasksInputParamName ?? '';
  const list: unknown = input[listKey];
  const inputs: unknown = input[inputKey];
  if (!Array.isArray(list))
    return {
      ok: false,
      reason: `Input '${listKey}' of the dynamic fork is not a list of tasks: ${display(list)}`,
    };
  if (!isPlainObject(inputs))
    return {
      ok: false,
      reason: `Input to the dynamically forked tasks is not a map -> expecting a map of K,V  but found ${display(inputs)}`,
    };
  const tasks: WorkflowTask[] = [];
  for (const item of list) {
    if (!isPlainObject(item))
      return { ok: false, reason: `A dynamically forked task is not an object: ${display(item)}` };
    const task = { ...item } as WorkflowTask;
    const ref = task.taskReferenceName;
    const own: unknown = typeof ref === 'string' ? inputs[ref] : undefined;
    // Conductor adds the task's entry to its own inputParameters; an entry that is not a map
    // fails the run (its mapper's cast fails: "Tasks could not be dynamically forked …").
    if (own !== undefined && own !== null && !isPlainObject(own))
      return {
        ok: false,
        reason: `Tasks could not be dynamically forked due to invalid input: the input of ${String(ref)} is not a map but ${display(own)}`,
      };
    if (isPlainObject(own))
      task.inputParameters = copyWith(
        isPlainObject(task.inputParameters) ? task.inputParameters : {},
        own as JsonObject,
      );
    tasks.push(task);
  }
  return { ok: true, tasks };
}

function fromLegacyList(node: WorkflowTask, input: JsonObject): Forked {
  const key = node.dynamicForkJoinTasksParam ?? '';
  const value: unknown = input[key];
  const dynamicTasks: unknown = isPlainObject(value) ? value.dynamicTasks : undefined;
  if (!Array.isArray(dynamicTasks))
    return {
      ok: false,
      reason: `Input '${key}' of the dynamic fork has no list 'dynamicTasks': ${display(value)}`,
    };
  const tasks: WorkflowTask[] = [];
  for (const item of dynamicTasks) {
    if (!isPlainObject(item))
      return { ok: false, reason: `A dynamically forked task is not an object: ${display(item)}` };
    const task: WorkflowTask = {
      name: typeof item.taskName === 'string' ? item.taskName : '',
      taskReferenceName: item.referenceName as string,
      type: typeof item.type === 'string' ? item.type : 'SIMPLE',
      inputParameters: isPlainObject(item.input) ? (item.input as JsonObject) : {},
    };
    if (typeof item.workflowName === 'string') {
      task.type = 'SUB_WORKFLOW';
      task.subWorkflowParam = { name: item.workflowName };
    }
    tasks.push(task);
  }
  return { ok: true, tasks };
}

function fromSimpleInputs(input: JsonObject): Forked {
  const name = input.forkTaskName;
  const inputs = input.forkTaskInputs;
  if (typeof name !== 'string' || name === '')
    return {
      ok: false,
      reason: `Input 'forkTaskName' of the dynamic fork is not a task name: ${display(name)}`,
    };
  if (!Array.isArray(inputs))
    return {
      ok: false,
      reason: `Input 'forkTaskInputs' of the dynamic fork is not a list: ${display(inputs)}`,
    };
  const workflow = input.forkTaskWorkflow;
  const type =
    typeof workflow === 'string'
      ? 'SUB_WORKFLOW'
      : typeof input.forkTaskType === 'string'
        ? input.forkTaskType
        : 'SIMPLE';
  const tasks = inputs.map((item: JsonValue, i): WorkflowTask => {
    const taskInput: JsonObject = isPlainObject(item)
      ? copyWith(item, { __index: i })
      : { input: item, __index: i };
    const task: WorkflowTask = { name, taskReferenceName: `_${name}_${i}`, type, inputParameters: taskInput };
    if (typeof workflow === 'string') {
      const version = input.forkTaskWorkflowVersion;
      task.subWorkflowParam = { name: workflow, ...(typeof version === 'number' && { version }) };
    }
    return task;
  });
  return { ok: true, tasks };
}

function forkedTasks(node: WorkflowTask, input: JsonObject): Forked {
  if (typeof node.dynamicForkTasksParam === 'string' && node.dynamicForkTasksParam !== '')
    return fromTaskList(node, input);
  if (typeof node.dynamicForkJoinTasksParam === 'string' && node.dynamicForkJoinTasksParam !== '')
    return fromLegacyList(node, input);
  return fromSimpleInputs(input);
}

/** Every forked task needs a name, a unique ref, and a kind that is a single step. */
function checkForked(tasks: readonly WorkflowTask[]): string | undefined {
  const seen = new Set<string>();
  for (const task of tasks) {
    const ref: unknown = task.taskReferenceName;
    if (typeof ref !== 'string' || ref === '')
      return `A dynamically forked task has no taskReferenceName: ${display(task)}`;
    if (typeof task.name !== 'string' || task.name === '')
      return `Dynamically forked task ${ref} has no name`;
    if (seen.has(ref)) return `Dynamically forked task reference ${ref} is used twice`;
    seen.add(ref);
    if (
      childTaskLists(task).some((list) => list.tasks.length > 0) ||
      ['JOIN', 'EXCLUSIVE_JOIN', 'FORK_JOIN_DYNAMIC', 'DO_WHILE', 'SWITCH', 'DECISION', 'FORK_JOIN'].includes(
        kindNameOf(task),
      )
    )
      return `Dynamically forked task ${ref} is of type ${kindNameOf(task)}: a dynamic fork runs single tasks (use a SUB_WORKFLOW for more)`;
  }
  return undefined;
}

function display(value: unknown): string {
  if (value === undefined) return 'null';
  return javaMapString(value as JsonValue);
}

/** The forked tasks, then the JOIN that follows, waiting on all of them. */
function forkDynamicBranches(flow: Flow, fork: TaskRecord): void {
  const join = joinAfter(flow, fork);
  if (!join) {
    flow.fail(DYNAMIC_FORK_NOT_FOLLOWED_BY_JOIN);
    return;
  }
  const suffix = suffixOf(fork);
  const nodes = Array.isArray(fork.inputData.forkedTaskDefs)
    ? (fork.inputData.forkedTaskDefs as unknown as WorkflowTask[])
    : [];
  for (const node of nodes) flow.schedule(node, suffix);
  flow.schedule(join, suffix, { joinOn: nodes.map((node) => node.taskReferenceName + suffix) });
}

export const forkJoinDynamicKind: TaskKind = {
  kind: 'FORK_JOIN_DYNAMIC',
  retryable: false,
  // Ends in the decision that makes it: seen open only when something outside completes it.
  waiting: 'outside',
  schedule(sctx, node, request) {
    const taskId = sctx.ctx.newId();
    const input = resolvedInput(sctx, node, taskId);
    const forked = forkedTasks(node, input);
    if (!forked.ok) return { ok: false, reason: forked.reason };
    const limit = sctx.ctx.settings.maxForkBranches;
    if (forked.tasks.length > limit)
      return {
        ok: false,
        reason: `The dynamic fork ${node.taskReferenceName} would make ${forked.tasks.length} branches, more than the ${limit} this server allows (BATON_MAX_FORK_BRANCHES): split the work, for example into sub-workflows of at most ${limit} branches each`,
      };
    const problem = checkForked(forked.tasks);
    if (problem) return { ok: false, reason: problem };
    const task = systemTask(sctx, node, request, {
      taskId,
      taskType: 'FORK',
      status: 'COMPLETED',
      inputData: copyWith(input, {
        forkedTasks: forked.tasks.map((t) => t.taskReferenceName),
        forkedTaskDefs: forked.tasks as unknown as JsonValue[],
      }),
    });
    return { ok: true, tasks: [task], commands: [] };
  },
  // As FORK_JOIN: made right after the FORK (Conductor's scheduling order), again when acted on.
  onScheduled: forkDynamicBranches,
  onSuccess: forkDynamicBranches,
  check(node, path) {
    const errors: ValidationError[] = [];
    const params = isPlainObject(node.inputParameters) ? node.inputParameters : {};
    const namesKey = (
      field: 'dynamicForkTasksParam' | 'dynamicForkTasksInputParamName' | 'dynamicForkJoinTasksParam',
    ) => {
      const key: unknown = node[field];
      if (typeof key === 'string' && key !== '' && !Object.hasOwn(params, key))
        errors.push(
          fieldProblem(path, field, node, `${field} '${key}' names no key of inputParameters`, key),
        );
    };
    const tasksParam = node.dynamicForkTasksParam;
    const inputParam = node.dynamicForkTasksInputParamName;
    if (typeof tasksParam === 'string' && tasksParam !== '') {
      if (typeof inputParam !== 'string' || inputParam === '')
        errors.push(requiredField(path, 'dynamicForkTasksInputParamName', node));
      namesKey('dynamicForkTasksParam');
      namesKey('dynamicForkTasksInputParamName');
    } else if (typeof node.dynamicForkJoinTasksParam === 'string' && node.dynamicForkJoinTasksParam !== '') {
      namesKey('dynamicForkJoinTasksParam');
    } else if (!Object.hasOwn(params, 'forkTaskInputs') || !Object.hasOwn(params, 'forkTaskName')) {
      errors.push({
        path: `${path}.dynamicForkTasksParam`,
        message: `dynamicForkTasksParam with dynamicForkTasksInputParamName, dynamicForkJoinTasksParam, or inputParameters forkTaskName with forkTaskInputs field is required for taskType: FORK_JOIN_DYNAMIC taskName: ${node.name}`,
      });
    }
    return errors;
  },
};
