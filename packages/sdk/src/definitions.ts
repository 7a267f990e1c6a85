import type { JsonObject, JsonValue, TaskDef, WorkflowDef, WorkflowTask } from '@baton/protocol';

/**
 * Typed builders for definitions: plain objects in Conductor's JSON shape, with the fields
 * people get wrong (refs, types, nesting) made by functions. Every builder answers a value the
 * server takes as it is (`client.putWorkflowDefs([workflow(…)])`).
 */

export function taskDef(name: string, fields: Omit<TaskDef, 'name'> = {}): TaskDef {
  return {
    retryCount: 3,
    retryLogic: 'FIXED',
    retryDelaySeconds: 1,
    responseTimeoutSeconds: 60,
    ...fields,
    name,
  };
}

export function workflow(
  name: string,
  tasks: WorkflowTask[],
  fields: Omit<WorkflowDef, 'name' | 'tasks'> = {},
): WorkflowDef {
  return { version: 1, schemaVersion: 2, ownerEmail: 'baton@localhost', ...fields, name, tasks };
}

type Extra = Partial<Omit<WorkflowTask, 'name' | 'taskReferenceName' | 'type'>>;

/** A worker task of type `name`. */
export function simpleTask(
  ref: string,
  name: string,
  inputParameters: JsonObject = {},
  extra: Extra = {},
): WorkflowTask {
  return { ...extra, name, taskReferenceName: ref, type: 'SIMPLE', inputParameters };
}

export function switchTask(
  ref: string,
  expression: string,
  decisionCases: Record<string, WorkflowTask[]>,
  defaultCase: WorkflowTask[] = [],
  inputParameters: JsonObject = {},
): WorkflowTask {
  return {
    name: ref,
    taskReferenceName: ref,
    type: 'SWITCH',
    evaluatorType: 'value-param',
    expression,
    inputParameters,
    decisionCases,
    defaultCase,
  };
}

/** Parallel branches and the JOIN that waits on the last task of each. */
export function forkJoin(ref: string, branches: WorkflowTask[][]): [WorkflowTask, WorkflowTask] {
  const joinOn = branches
    .map((b) => b[b.length - 1]?.taskReferenceName)
    .filter((r): r is string => r !== undefined);
  return [
    { name: ref, taskReferenceName: ref, type: 'FORK_JOIN', forkTasks: branches },
    { name: `${ref}_join`, taskReferenceName: `${ref}_join`, type: 'JOIN', joinOn },
  ];
}

export function doWhile(
  ref: string,
  loopCondition: string,
  loopOver: WorkflowTask[],
  inputParameters: JsonObject = {},
): WorkflowTask {
  return { name: ref, taskReferenceName: ref, type: 'DO_WHILE', loopCondition, loopOver, inputParameters };
}

/** WAIT for a duration ("30 seconds", "5 mins"), or until completed from outside when none. */
export function waitTask(ref: string, duration?: string): WorkflowTask {
  return {
    name: ref,
    taskReferenceName: ref,
    type: 'WAIT',
    inputParameters: duration === undefined ? {} : { duration },
  };
}

export function httpTask(ref: string, http_request: JsonObject): WorkflowTask {
  return { name: ref, taskReferenceName: ref, type: 'HTTP', inputParameters: { http_request } };
}

export function inlineTask(ref: string, expression: string, inputParameters: JsonObject = {}): WorkflowTask {
  return {
    name: ref,
    taskReferenceName: ref,
    type: 'INLINE',
    inputParameters: { evaluatorType: 'javascript', expression, ...inputParameters },
  };
}

export function subWorkflow(
  ref: string,
  name: string,
  version?: number,
  inputParameters: JsonObject = {},
): WorkflowTask {
  return {
    name: ref,
    taskReferenceName: ref,
    type: 'SUB_WORKFLOW',
    inputParameters,
    subWorkflowParam: version === undefined ? { name } : { name, version },
  };
}

export function terminate(
  ref: string,
  status: 'COMPLETED' | 'FAILED' | 'TERMINATED',
  reason?: string,
): WorkflowTask {
  return {
    name: ref,
    taskReferenceName: ref,
    type: 'TERMINATE',
    inputParameters: {
      terminationStatus: status,
      ...(reason !== undefined && { terminationReason: reason }),
    },
  };
}

/** A worker task of a type that is no built-in kind (Conductor's USER_DEFINED). */
export function userDefinedTask(
  ref: string,
  type: string,
  inputParameters: JsonObject = {},
  extra: Extra = {},
): WorkflowTask {
  return { ...extra, name: type, taskReferenceName: ref, type: 'USER_DEFINED', inputParameters };
}

/** DECISION (SWITCH's deprecated predecessor): the case is `inputParameters[caseValueParam]`. */
export function decisionTask(
  ref: string,
  caseValueParam: string,
  decisionCases: Record<string, WorkflowTask[]>,
  defaultCase: WorkflowTask[] = [],
  inputParameters: JsonObject = {},
): WorkflowTask {
  return {
    name: ref,
    taskReferenceName: ref,
    type: 'DECISION',
    caseValueParam,
    inputParameters,
    decisionCases,
    defaultCase,
  };
}

/**
 * FORK_JOIN_DYNAMIC in its simple form: one `forkTaskName` worker task per item of
 * `forkTaskInputs` (a list, or an expression that gives one), run in parallel. Follow it with
 * `join(…)`, which then waits on every forked task.
 */
export function dynamicFork(
  ref: string,
  forkTaskName: string,
  forkTaskInputs: JsonValue,
  inputParameters: JsonObject = {},
): WorkflowTask {
  return {
    name: ref,
    taskReferenceName: ref,
    type: 'FORK_JOIN_DYNAMIC',
    inputParameters: { ...inputParameters, forkTaskName, forkTaskInputs },
  };
}

/** A JOIN that waits on these refs (after a fork: the last task of each branch). */
export function join(ref: string, joinOn: string[] = []): WorkflowTask {
  return { name: ref, taskReferenceName: ref, type: 'JOIN', joinOn };
}

/** EXCLUSIVE_JOIN: ends with the first of `joinOn` that ran, else the first of the defaults. */
export function exclusiveJoin(
  ref: string,
  joinOn: string[],
  defaultExclusiveJoinTask: string[] = [],
): WorkflowTask {
  return { name: ref, taskReferenceName: ref, type: 'EXCLUSIVE_JOIN', joinOn, defaultExclusiveJoinTask };
}

/** DYNAMIC: runs the worker task named by `taskName` (a name, or an expression that gives one). */
export function dynamicTask(ref: string, taskName: string, inputParameters: JsonObject = {}): WorkflowTask {
  return {
    name: ref,
    taskReferenceName: ref,
    type: 'DYNAMIC',
    dynamicTaskNameParam: 'taskToExecute',
    inputParameters: { ...inputParameters, taskToExecute: taskName },
  };
}

/** START_WORKFLOW: starts a run of `name` and goes on without waiting for it. */
export function startWorkflow(
  ref: string,
  name: string,
  version?: number,
  input: JsonObject = {},
): WorkflowTask {
  return {
    name: ref,
    taskReferenceName: ref,
    type: 'START_WORKFLOW',
    inputParameters: { startWorkflow: { name, ...(version !== undefined && { version }), input } },
  };
}

/** EVENT: publishes the task's input to `sink` (`baton:orders`, `amqp:orders`, `nats:orders`). */
export function eventTask(ref: string, sink: string, inputParameters: JsonObject = {}): WorkflowTask {
  return { name: ref, taskReferenceName: ref, type: 'EVENT', sink, inputParameters };
}

/** HUMAN: waits for a person to complete it (by name, or by a signal). */
export function humanTask(ref: string, assignee?: string, inputParameters: JsonObject = {}): WorkflowTask {
  return {
    name: ref,
    taskReferenceName: ref,
    type: 'HUMAN',
    inputParameters: assignee === undefined ? inputParameters : { ...inputParameters, assignee },
  };
}

/** LAMBDA (Conductor's legacy script task): `scriptExpression` is a function body over `$`. */
export function lambdaTask(
  ref: string,
  scriptExpression: string,
  inputParameters: JsonObject = {},
): WorkflowTask {
  return {
    name: ref,
    taskReferenceName: ref,
    type: 'LAMBDA',
    inputParameters: { ...inputParameters, scriptExpression },
  };
}

/** JSON_JQ_TRANSFORM: the jq filter `queryExpression` over the task's input. */
export function jqTransform(
  ref: string,
  queryExpression: string,
  inputParameters: JsonObject = {},
): WorkflowTask {
  return {
    name: ref,
    taskReferenceName: ref,
    type: 'JSON_JQ_TRANSFORM',
    inputParameters: { ...inputParameters, queryExpression },
  };
}

/** SET_VARIABLE: sets these run variables (values may be expressions). */
export function setVariable(ref: string, variables: JsonObject): WorkflowTask {
  return { name: ref, taskReferenceName: ref, type: 'SET_VARIABLE', inputParameters: variables };
}

/** NOOP: does nothing (a place to join branches or to name a point of the run). */
export function noopTask(ref: string): WorkflowTask {
  return { name: ref, taskReferenceName: ref, type: 'NOOP' };
}

/** PULL_WORKFLOW_MESSAGES: takes messages from the run's mailbox (`batchSize`, `blocking`). */
export function pullWorkflowMessages(ref: string, inputParameters: JsonObject = {}): WorkflowTask {
  return { name: ref, taskReferenceName: ref, type: 'PULL_WORKFLOW_MESSAGES', inputParameters };
}

/** The kinds of call the server makes itself, besides HTTP (`httpTask`). */
export type SystemTaskType =
  | 'CALL_TOOL'
  | 'CALL_MCP_TOOL'
  | 'LIST_TOOLS'
  | 'LIST_MCP_TOOLS'
  | 'CONNECTOR'
  | 'DOCUMENT_INTELLIGENCE'
  | 'LLM_CHAT_COMPLETE'
  | 'LLM_TEXT_COMPLETE'
  | 'LLM_GENERATE_EMBEDDINGS';

/** A call the server makes itself (a tool, a connector, a model): its input is the call's. */
export function systemTask(
  ref: string,
  type: SystemTaskType,
  inputParameters: JsonObject = {},
): WorkflowTask {
  return { name: ref, taskReferenceName: ref, type, inputParameters };
}

/** `${ref.output.path}` / `${workflow.input.path}`: the expression strings of input parameters. */
export const ref = {
  input: (path: string): string => `\${workflow.input.${path}}`,
  output: (taskRef: string, path?: string): string =>
    `\${${taskRef}.output${path === undefined ? '' : `.${path}`}}`,
};
