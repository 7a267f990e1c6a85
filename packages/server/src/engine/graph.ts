import { CHILD_LIST_FIELDS, isTaskKind, type WorkflowDef, type WorkflowTask } from '@baton/protocol';
import { systemCallKindOf } from './kinds/system-call-names.js';

/**
 * The shape of a definition: a list of tasks where some tasks (containers) hold further lists
 * (SWITCH/DECISION cases, FORK_JOIN branches, DO_WHILE bodies). Everything that asks "where is
 * ref X" or "what comes after ref X" walks this tree, so a new container kind only has to say
 * which lists it holds (its `childLists` in protocol's `TASK_KIND_INFO`) and what follows the
 * end of one of them (the `branch-end` answer of `nextAfter`, handled by that kind).
 */

/** One nested task list of a container, with the path suffix that names it. */
export interface ChildList {
  /** Suffix after the container's path: `decisionCases.a`, `defaultCase`, `forkTasks[0]`, `loopOver`. */
  readonly key: string;
  readonly tasks: readonly WorkflowTask[];
}

/**
 * The task lists a task holds, in the fields the kinds declare (protocol's `TASK_KIND_INFO`
 * `childLists`). Every declared field is read whatever the node's type, so a malformed node's
 * nested tasks are still walked (and validated). Robust to malformed fields (definitions come
 * from JSON).
 */
export function childTaskLists(task: WorkflowTask): ChildList[] {
  const lists: ChildList[] = [];
  for (const { field, form } of CHILD_LIST_FIELDS) {
    const value: unknown = (task as Record<string, unknown>)[field];
    if (form === 'list') {
      if (Array.isArray(value)) lists.push({ key: field, tasks: value as WorkflowTask[] });
    } else if (form === 'branches') {
      if (!Array.isArray(value)) continue;
      value.forEach((branch: unknown, i) => {
        if (Array.isArray(branch)) lists.push({ key: `${field}[${i}]`, tasks: branch as WorkflowTask[] });
      });
    } else if (isPlainObject(value)) {
      for (const [name, list] of Object.entries(value)) {
        if (Array.isArray(list))
          lists.push({ key: `${field}${propertyPath(name)}`, tasks: list as WorkflowTask[] });
      }
    }
  }
  return lists;
}

/** `.name` for identifier-like keys, `['odd key']` otherwise (validation paths). */
export function propertyPath(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `['${key.replaceAll("'", "\\'")}']`;
}

/**
 * Visits every task of a list and of the lists nested in it, depth first, in definition order.
 * Elements that are not objects are passed as they are (validation reports them).
 */
export function walkTasks(
  tasks: readonly unknown[],
  visit: (task: unknown, path: string, container: WorkflowTask | undefined) => void,
  basePath = 'tasks',
  container?: WorkflowTask,
): void {
  tasks.forEach((task, index) => {
    const path = `${basePath}[${index}]`;
    visit(task, path, container);
    if (isPlainObject(task)) {
      const wfTask = task as WorkflowTask;
      for (const child of childTaskLists(wfTask))
        walkTasks(child.tasks, visit, `${path}.${child.key}`, wfTask);
    }
  });
}

/**
 * Every workflow task in the tree, in definition order. Kept for each tree it was asked of: each
 * decision on a run asks it of the run's definition (the task definitions its worker tasks take,
 * whether it reads its mailbox), and a run of a hundred steps walked its hundred nodes twice a
 * step. A definition is never changed in place once read (a new version, or an edit, is a new
 * object), and a tree given a new top-level list is walked anew.
 */
export function allTasks(def: WorkflowDef): readonly WorkflowTask[] {
  const top: unknown = def.tasks;
  if (!Array.isArray(top)) return [];
  const kept = walked.get(top);
  if (kept !== undefined) return kept;
  const out: WorkflowTask[] = [];
  walkTasks(top, (task) => {
    if (isPlainObject(task)) out.push(task as WorkflowTask);
  });
  walked.set(top, Object.freeze(out));
  return out;
}

const walked = new WeakMap<readonly unknown[], readonly WorkflowTask[]>();

/** Every taskReferenceName in the tree. */
export function allTaskRefs(def: WorkflowDef): Set<string> {
  const refs = new Set<string>();
  for (const task of allTasks(def)) {
    if (typeof task.taskReferenceName === 'string') refs.add(task.taskReferenceName);
  }
  return refs;
}

/** One step of the way from the top-level list down to a task. */
interface Frame {
  readonly list: readonly WorkflowTask[];
  readonly index: number;
  /** The container holding `list`; undefined for the top-level list. */
  readonly container: WorkflowTask | undefined;
}

/** The frames from the top-level list down to the task with this ref (last frame = the task). */
function locate(list: readonly WorkflowTask[], ref: string, container?: WorkflowTask): Frame[] | undefined {
  for (let index = 0; index < list.length; index++) {
    const task = list[index];
    if (!isPlainObject(task)) continue;
    if (task.taskReferenceName === ref) return [{ list, index, container }];
    for (const child of childTaskLists(task)) {
      const inner = locate(child.tasks, ref, task);
      if (inner) return [{ list, index, container }, ...inner];
    }
  }
  return undefined;
}

export function findTask(def: WorkflowDef, ref: string): WorkflowTask | undefined {
  const frames = locate(def.tasks, ref);
  const last = frames?.[frames.length - 1];
  return last ? last.list[last.index] : undefined;
}

export function firstTask(def: WorkflowDef): WorkflowTask | undefined {
  return def.tasks[0];
}

/** What follows a task in the definition. */
export type NextStep =
  /** The next task to schedule. */
  | { readonly type: 'task'; readonly task: WorkflowTask }
  /** The task was the last of the top-level list: nothing follows, the run may complete. */
  | { readonly type: 'end' }
  /**
   * The task was the last of a nested list. What follows is the container kind's business
   * (a SWITCH continues after itself, a fork branch ends at its JOIN, a DO_WHILE evaluates
   * its condition); that kind answers it when it is implemented.
   */
  | { readonly type: 'branch-end'; readonly container: WorkflowTask };

/** What comes after the task with this ref; undefined when the ref is not in the definition. */
export function nextAfter(def: WorkflowDef, ref: string): NextStep | undefined {
  const frames = locate(def.tasks, ref);
  const last = frames?.[frames.length - 1];
  if (!last) return undefined;
  const next = last.list[last.index + 1];
  if (next !== undefined) return { type: 'task', task: next };
  if (last.container === undefined) return { type: 'end' };
  return { type: 'branch-end', container: last.container };
}

/** The kind name of a definition node: its `type` (SIMPLE when absent), USER_DEFINED when unknown. */
export function kindNameOf(workflowTask: Pick<WorkflowTask, 'type'>): string {
  const type: unknown = workflowTask.type;
  if (type === undefined || type === null || type === '') return 'SIMPLE';
  if (typeof type !== 'string') return 'USER_DEFINED';
  return isTaskKind(type) ? type : 'USER_DEFINED';
}

/** True for nodes run by external workers: SIMPLE, and USER_DEFINED (unknown `type`). */
export function isWorkerTask(workflowTask: Pick<WorkflowTask, 'type'>): boolean {
  const kind = kindNameOf(workflowTask);
  return kind === 'SIMPLE' || kind === 'USER_DEFINED';
}

/**
 * The `name`s of every node that takes a task definition (worker tasks, system calls,
 * SUB_WORKFLOW and WAIT) in the definition tree, each once:
 * the task definitions the service loads into `DecideContext.taskDefs` for this definition.
 */
export function workerTaskNames(def: WorkflowDef): string[] {
  const names = new Set<string>();
  for (const task of allTasks(def)) {
    // System calls (HTTP, …) are queued like worker tasks and take a task definition of their name too.
    const queued = isWorkerTask(task) || systemCallKindOf(task.type) !== undefined;
    // A SUB_WORKFLOW's task definition of its name gives it retries (Conductor's `retry`); a
    // WAIT's, its timeout and retries.
    const kind = kindNameOf(task);
    const withDef = queued || kind === 'SUB_WORKFLOW' || kind === 'WAIT';
    if (typeof task.name === 'string' && task.name !== '' && withDef) names.add(task.name);
    const chosen = runTimeWorkerName(task);
    if (chosen !== undefined) names.add(chosen);
  }
  return [...names];
}

/**
 * The worker task name a DYNAMIC or FORK_JOIN_DYNAMIC (simple form) node will run, when its
 * definition gives it literally (not as an expression): its task definition is loaded too.
 */
function runTimeWorkerName(task: WorkflowTask): string | undefined {
  const params = task.inputParameters;
  if (!isPlainObject(params)) return undefined;
  const kind = kindNameOf(task);
  let value: unknown;
  if (kind === 'DYNAMIC' && typeof task.dynamicTaskNameParam === 'string')
    value = params[task.dynamicTaskNameParam];
  else if (kind === 'FORK_JOIN_DYNAMIC') value = params.forkTaskName;
  return typeof value === 'string' && value !== '' && !value.includes('${') ? value : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
