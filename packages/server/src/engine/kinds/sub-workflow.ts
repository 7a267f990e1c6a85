import type { JsonObject, JsonValue, ValidationError, WorkflowDef, WorkflowTask } from '@baton/protocol';
import { resolveValue, type ExpressionDocument } from '../expressions.js';
import type { Command } from '../types.js';
import type { TaskKind } from './kind.js';
import type { WaitingExplainer } from './waiting-explanation.js';
import { finish, startedSystemTask } from './system-task.js';
import { boundedPriority } from '../../bounds/ranges.js';
import { copyWith } from '../../copy-with.js';

/**
 * SUB_WORKFLOW (Conductor's `SubWorkflow`): starts a child run of `subWorkflowParam`
 * (`name` + `version`, latest when absent or 0; or an inline `workflowDefinition`) with the
 * task's resolved `inputParameters` as input, and waits for it. The child is started by the
 * executor in the same transaction (`START_CHILD`) with `parentWorkflowId`,
 * `parentWorkflowTaskId`, the parent's correlationId and taskToDomain (or the param's). When
 * the child ends, its ending transaction wakes the parent with `CHILD_ENDED`
 * (`child-runs.ts`), which ends the task: COMPLETED→COMPLETED, FAILED→FAILED,
 * TERMINATED→CANCELED, TIMED_OUT→TIMED_OUT, output = the child's output. Canceling the task
 * (its run ends first) terminates the child.
 */
/** A SUB_WORKFLOW waits for its child run to end: which one, and how that run stands. */
const subWorkflowWaiting: WaitingExplainer = {
  needs: (task) => ({ child: task.subWorkflowId !== undefined }),
  explain(task, facts) {
    const childId = task.subWorkflowId;
    if (childId === undefined)
      return { reason: 'child-run', message: 'waiting: its child run is being started' };
    const status = facts.child?.status;
    const name = facts.child ? ` (${facts.child.workflowName})` : '';
    // A child retried on its own: the task follows the new run (its parent resumed with it).
    const retryOf = facts.child?.links.retry_of;
    const retried = retryOf !== undefined ? `, the retry of child run ${retryOf}` : '';
    return {
      reason: 'child-run',
      message: `waiting: for child run ${childId}${name}${retried} to end; it is ${status ?? 'not found'}`,
      childWorkflowId: childId,
      ...(status !== undefined && { childStatus: status }),
    };
  },
};

export const subWorkflowKind: TaskKind = {
  kind: 'SUB_WORKFLOW',
  // Conductor retries a failed child under the task definition of the task's name (inline or
  // registered): each attempt starts a new child run. Without a definition a failed child is final.
  retryable: true,
  waiting: subWorkflowWaiting,
  retriesNeedTaskDefinition: true,
  schedule(sctx, workflowTask, request) {
    const { ctx, run } = sctx;
    const task = startedSystemTask(sctx, workflowTask, 'SUB_WORKFLOW', request);
    const params = resolveParams(workflowTask, sctx.expressionDocument());
    const workflowInput = task.inputData;
    const input: JsonObject = copyWith(workflowInput, { workflowInput });
    if (params.name !== undefined) input.subWorkflowName = params.name;
    if (params.version !== undefined) input.subWorkflowVersion = params.version;
    if (params.taskToDomain !== undefined) input.subWorkflowTaskToDomain = params.taskToDomain;
    if (params.definition !== undefined)
      input.subWorkflowDefinition = params.definition as unknown as JsonObject;
    if (params.priority !== undefined) input.priority = params.priority;
    const name = params.name ?? params.definition?.name;
    if (name === undefined) {
      const reason = 'subWorkflowParam.name is missing and no workflowDefinition is given';
      return {
        ok: true,
        tasks: [finish(copyWith(task, { inputData: input }), 'FAILED', {}, reason)],
        commands: [],
      };
    }
    const childWorkflowId = ctx.newId();
    const started = copyWith(task, {
      inputData: input,
      status: 'IN_PROGRESS' as const,
      subWorkflowId: childWorkflowId,
      outputData: { subWorkflowId: childWorkflowId },
    });
    const command: Command = {
      type: 'START_CHILD',
      taskId: task.taskId,
      childWorkflowId,
      name,
      ...(params.version !== undefined && params.version > 0 && { version: params.version }),
      ...(params.definition !== undefined && { definition: params.definition }),
      // A definition an expression gave, or any inline one in a run whose own came from data.
      ...(params.definition !== undefined &&
        (typeof workflowTask.subWorkflowParam?.workflowDefinition === 'string' ||
          run.definitionFromData === true) && {
          definitionFromData: true as const,
        }),
      input: structuredClone(workflowInput),
      taskToDomain: params.taskToDomain ?? { ...run.taskToDomain },
      priority: params.priority ?? run.priority,
    };
    return { ok: true, tasks: [started], commands: [command] };
  },
  check(workflowTask, path, cctx) {
    const errors: ValidationError[] = [];
    const param: unknown = workflowTask.subWorkflowParam;
    if (typeof param !== 'object' || param === null || Array.isArray(param)) {
      errors.push({
        path: `${path}.subWorkflowParam`,
        message: `subWorkflowParam field is required for taskType: SUB_WORKFLOW taskName: ${workflowTask.name}`,
        ...(param !== undefined && { invalidValue: param }),
      });
      return errors;
    }
    const { name, version, workflowDefinition } = param as Record<string, unknown>;
    const hasDefinition = workflowDefinition !== undefined && workflowDefinition !== null;
    if (!hasDefinition && (typeof name !== 'string' || name.trim() === '')) {
      errors.push({
        path: `${path}.subWorkflowParam.name`,
        message: `subWorkflowParam.name field is required for taskType: SUB_WORKFLOW taskName: ${workflowTask.name}`,
        ...(name !== undefined && { invalidValue: name }),
      });
    }
    const literalName = typeof name === 'string' && name.trim() !== '' && !name.includes('${');
    if (!hasDefinition && literalName && cctx.workflowExists) {
      const pinned = typeof version === 'number' && version > 0 ? version : undefined;
      if (!cctx.workflowExists(name, pinned)) {
        errors.push({
          path: `${path}.subWorkflowParam.name`,
          message:
            pinned === undefined
              ? `sub-workflow ${name} of task ${workflowTask.taskReferenceName} is not a registered workflow definition`
              : `sub-workflow ${name} version ${pinned} of task ${workflowTask.taskReferenceName} is not a registered workflow definition`,
          invalidValue: name,
        });
      }
    }
    if (
      version !== undefined &&
      version !== null &&
      !(typeof version === 'number' && Number.isInteger(version) && version >= 0)
    ) {
      errors.push({
        path: `${path}.subWorkflowParam.version`,
        message: 'subWorkflowParam.version must be a non-negative integer (absent or 0 = latest)',
        invalidValue: version,
      });
    }
    if (hasDefinition && typeof workflowDefinition !== 'string') {
      const def = workflowDefinition as Partial<WorkflowDef>;
      if (typeof def !== 'object' || !Array.isArray(def.tasks) || typeof def.name !== 'string') {
        errors.push({
          path: `${path}.subWorkflowParam.workflowDefinition`,
          message: 'subWorkflowParam.workflowDefinition must be a workflow definition with a name and tasks',
          invalidValue: workflowDefinition,
        });
      }
    }
    return errors;
  },
  cancel(task, reason) {
    if (task.subWorkflowId === undefined) return [];
    return [
      {
        type: 'TERMINATE_CHILD',
        childWorkflowId: task.subWorkflowId,
        reason: `Parent workflow has been terminated with reason: ${reason}`,
      },
    ];
  },
};

interface ChildParams {
  readonly name?: string;
  readonly version?: number;
  readonly taskToDomain?: Record<string, string>;
  readonly definition?: WorkflowDef;
  readonly priority?: number;
}

/**
 * `subWorkflowParam` with its expressions resolved. An inline definition is taken as it is
 * (its own `${…}` belong to the child run); only a definition given as an expression is resolved.
 */
function resolveParams(workflowTask: WorkflowTask, doc: ExpressionDocument): ChildParams {
  const param = workflowTask.subWorkflowParam ?? {};
  const resolve = (value: unknown): JsonValue | undefined =>
    value === undefined ? undefined : resolveValue(value as JsonValue, doc);
  const name = resolve(param.name);
  const version = resolve(param.version);
  const taskToDomain = resolve(param.taskToDomain);
  const priority = resolve(param.priority);
  const rawDefinition: unknown = param.workflowDefinition;
  const definition = typeof rawDefinition === 'string' ? resolve(rawDefinition) : rawDefinition;
  const out: {
    name?: string;
    version?: number;
    taskToDomain?: Record<string, string>;
    definition?: WorkflowDef;
    priority?: number;
  } = {};
  if (typeof name === 'string' && name !== '') out.name = name;
  const versionNumber = typeof version === 'string' && /^\d+$/.test(version) ? Number(version) : version;
  if (typeof versionNumber === 'number' && Number.isInteger(versionNumber)) out.version = versionNumber;
  if (isStringMap(taskToDomain)) out.taskToDomain = taskToDomain;
  if (typeof priority === 'number' && Number.isInteger(priority)) out.priority = boundedPriority(priority);
  if (isDefinition(definition)) out.definition = definition;
  return out;
}

function isStringMap(value: unknown): value is Record<string, string> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((v) => typeof v === 'string')
  );
}

function isDefinition(value: unknown): value is WorkflowDef {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { name?: unknown }).name === 'string' &&
    Array.isArray((value as { tasks?: unknown }).tasks)
  );
}
