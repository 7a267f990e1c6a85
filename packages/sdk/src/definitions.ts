import type { JsonObject, TaskDef, WorkflowDef, WorkflowTask } from '@baton/protocol';

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

/** `${ref.output.path}` / `${workflow.input.path}`: the expression strings of input parameters. */
export const ref = {
  input: (path: string): string => `\${workflow.input.${path}}`,
  output: (taskRef: string, path?: string): string =>
    `\${${taskRef}.output${path === undefined ? '' : `.${path}`}}`,
};
