import {
  isTaskKind,
  WORKFLOW_TIMEOUT_POLICIES,
  type ValidationError,
  type WorkflowDef,
  type WorkflowTask,
} from '@baton/protocol';
import { MAX_RETRY_COUNT } from '../../bounds/ranges.js';
import { referencedTaskRefs } from '../expressions.js';
import { allTasks, kindNameOf, propertyPath, walkTasks } from '../graph.js';
import type { CheckContext } from '../kinds/kind.js';
import { isImplementedKind, taskKindOf, unsupportedKindMessage } from '../kinds/registry.js';
import { checkControlFlow } from './check-control-flow.js';
import { checkTaskDefAt, taskDefWarnings } from './check-task-def.js';
import {
  checkBoolean,
  checkEnum,
  checkInteger,
  checkObject,
  checkString,
  checkStringList,
  display,
  isNonEmptyString,
  isRecord,
  join,
  problem,
  type JsonRecord,
} from './common.js';

export type { CheckContext } from '../kinds/kind.js';

/** Names an expression may start with besides task refs. */
// `instructions`: `${instructions.NAME}` reads the latest instruction text of that name.
const BUILT_IN_NAMES: ReadonlySet<string> = new Set(['workflow', 'CPEWF_TASK_ID', 'instructions']);

/**
 * Registration checks of a workflow definition (docs/design/definitions.md#registration-checks):
 * lists every problem found, each with its path (`name`, `tasks[1].taskReferenceName`,
 * `tasks[0].inputParameters.x`, …). The input may be any JSON.
 */
export function checkWorkflowDef(def: unknown, ctx: CheckContext): ValidationError[] {
  if (!isRecord(def)) return [problem('', 'WorkflowDef must be a JSON object', def)];
  const errors: ValidationError[] = [];
  const name = def.name;
  if (!isNonEmptyString(name)) {
    errors.push(problem('name', 'WorkflowDef name cannot be null or empty', name ?? null));
  }
  checkInteger(def, 'version', 0, (v) => `version: ${v} must be >= 0`, '', errors);
  checkString(def, 'description', '', errors);
  checkString(def, 'ownerEmail', '', errors);
  checkString(def, 'failureWorkflow', '', errors);
  if (def.schemaVersion !== undefined && def.schemaVersion !== null && def.schemaVersion !== 2) {
    errors.push(
      problem('schemaVersion', 'workflowDef schemaVersion: 2 is only supported', def.schemaVersion),
    );
  }
  checkInteger(def, 'timeoutSeconds', 0, (v) => `timeoutSeconds: ${v} must be >= 0`, '', errors);
  checkEnum(
    def,
    'timeoutPolicy',
    WORKFLOW_TIMEOUT_POLICIES,
    (v) => `timeoutPolicy: ${display(v)} is not one of ${WORKFLOW_TIMEOUT_POLICIES.join(', ')}`,
    '',
    errors,
  );
  checkBoolean(def, 'restartable', '', errors);
  checkBoolean(def, 'workflowStatusListenerEnabled', '', errors);
  // Where lifecycle events go (Conductor's field): a sink of a source Baton publishes to.
  const sink = def.workflowStatusListenerSink;
  if (
    sink !== undefined &&
    sink !== null &&
    (typeof sink !== 'string' || !/^(baton|amqp|nats):[^\s]+$/.test(sink))
  ) {
    errors.push(
      problem(
        'workflowStatusListenerSink',
        'workflowStatusListenerSink must be baton:<queue>, amqp:<queue> or nats:<subject>',
        sink,
      ),
    );
  }
  checkObject(def, 'outputParameters', '', errors);
  checkObject(def, 'inputTemplate', '', errors);
  checkObject(def, 'variables', '', errors);
  checkStringList(def, 'inputParameters', '', errors);

  const tasks = def.tasks;
  if (tasks === undefined || tasks === null || (Array.isArray(tasks) && tasks.length === 0)) {
    errors.push(problem('tasks', 'WorkflowTask list cannot be empty', tasks ?? null));
  } else if (!Array.isArray(tasks)) {
    errors.push(problem('tasks', 'tasks must be a list of tasks', tasks));
  }
  const taskList: unknown[] = Array.isArray(tasks) ? tasks : [];
  const defName = typeof name === 'string' ? name : 'null';

  // Every ref of the tree first: expressions may name a task defined after them.
  const refs = new Set<string>();
  walkTasks(taskList, (task) => {
    if (isRecord(task) && isNonEmptyString(task.taskReferenceName)) refs.add(task.taskReferenceName);
  });
  const seen = new Set<string>();
  walkTasks(taskList, (task, path) => {
    if (!isRecord(task)) {
      errors.push(problem(path, 'task must be a JSON object', task));
      return;
    }
    const ref = task.taskReferenceName;
    if (isNonEmptyString(ref)) {
      if (seen.has(ref)) {
        errors.push(
          problem(
            `${path}.taskReferenceName`,
            `taskReferenceName: ${ref} should be unique across tasks for a given workflowDefinition: ${defName}`,
            ref,
          ),
        );
      }
      seen.add(ref);
    }
    errors.push(...checkTask(task, path, ctx, refs));
  });

  errors.push(...checkControlFlow(taskList, refs));
  if (isRecord(def.outputParameters)) {
    errors.push(...checkExpressions(def.outputParameters, 'outputParameters', refs));
  }
  return errors;
}

/** The common checks of one definition node, then its kind's own. */
function checkTask(
  task: JsonRecord,
  path: string,
  ctx: CheckContext,
  refs: ReadonlySet<string>,
): ValidationError[] {
  const errors: ValidationError[] = [];
  const name = task.name;
  const nameOk = isNonEmptyString(name);
  if (!nameOk)
    errors.push(problem(`${path}.name`, 'WorkflowTask name cannot be empty or null', name ?? null));
  if (!isNonEmptyString(task.taskReferenceName)) {
    errors.push(
      problem(
        `${path}.taskReferenceName`,
        'WorkflowTask taskReferenceName name cannot be empty or null',
        task.taskReferenceName ?? null,
      ),
    );
  }
  checkInteger(task, 'retryCount', 0, (v) => `retryCount: ${v} must be >= 0`, path, errors, MAX_RETRY_COUNT);
  checkInteger(task, 'startDelay', 0, (v) => `startDelay: ${v} must be >= 0`, path, errors);
  checkBoolean(task, 'optional', path, errors);
  checkBoolean(task, 'permissive', path, errors);
  checkBoolean(task, 'asyncComplete', path, errors);
  checkString(task, 'description', path, errors);
  checkObject(task, 'inputParameters', path, errors);
  if (task.taskDefinition !== undefined && task.taskDefinition !== null) {
    errors.push(...checkTaskDefAt(task.taskDefinition, `${path}.taskDefinition`, true));
  }
  if (isRecord(task.inputParameters)) {
    errors.push(...checkExpressions(task.inputParameters, `${path}.inputParameters`, refs));
  }

  const type = task.type;
  if (type !== undefined && type !== null && (typeof type !== 'string' || type.trim() === '')) {
    errors.push(problem(`${path}.type`, 'type must be a non-empty string', type));
    return errors;
  }
  const workflowTask = task as WorkflowTask;
  const kindName = kindNameOf(workflowTask);
  if (isTaskKind(kindName) && kindName !== 'USER_DEFINED' && !isImplementedKind(kindName)) {
    errors.push(problem(`${path}.type`, unsupportedKindMessage(kindName), type));
    return errors;
  }
  const kind = taskKindOf(workflowTask);
  if (kind && nameOk) errors.push(...kind.check(workflowTask, path, ctx));
  return errors;
}

/** Every `${ref.…}` in a parameter value must name `workflow`, `CPEWF_TASK_ID` or a task of the definition. */
function checkExpressions(value: unknown, path: string, refs: ReadonlySet<string>): ValidationError[] {
  const errors: ValidationError[] = [];
  if (typeof value === 'string') {
    for (const ref of referencedTaskRefs(value)) {
      if (!BUILT_IN_NAMES.has(ref) && !refs.has(ref)) {
        errors.push(problem(path, `'${value}' names no task '${ref}' in this workflow`, value));
      }
    }
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => errors.push(...checkExpressions(item, `${path}[${i}]`, refs)));
  } else if (isRecord(value)) {
    for (const [key, item] of Object.entries(value)) {
      errors.push(...checkExpressions(item, join(path, propertyPath(key).replace(/^\./, '')), refs));
    }
  }
  return errors;
}

/**
 * What registration of a valid definition accepts but would refuse in a registered task
 * definition (Conductor accepts it inside a workflow definition), one line each, naming the task.
 */
export function workflowDefWarnings(def: WorkflowDef): string[] {
  return allTasks(def).flatMap((task) =>
    taskDefWarnings(task.taskDefinition).map(
      (message) => `task ${task.taskReferenceName}: inline taskDefinition accepted, but ${message}`,
    ),
  );
}
