import {
  isSuccessfulTaskStatus,
  type TaskRecord,
  type WorkflowDef,
  type WorkflowTask,
} from '@baton/protocol';
import { childTaskLists } from './graph.js';
import { copyWith } from '../copy-with.js';

/**
 * The tasks a run made by retry or rerun starts with: copies of the original's successful
 * tasks (new ids, same refs, inputs and recorded outputs), marked not yet acted on. The new
 * run's first decision re-walks them like any ended task: each schedules what follows it, and
 * no kind schedules a ref that already has a task, so only the work that did not succeed is
 * done again — whatever the kinds (sequences, forks, loops, sub-workflows).
 *
 * A container (SWITCH, FORK_JOIN, DO_WHILE, …) holding a task that is done again is not
 * copied: it is scheduled afresh and re-enters its branches, where the copies stand.
 */
export interface CopyRequest {
  readonly definition: WorkflowDef;
  /** The original run's tasks, in seq order. */
  readonly tasks: readonly TaskRecord[];
  readonly newWorkflowId: string;
  readonly newId: () => string;
  /**
   * Rerun: the ref to resume from. Only tasks scheduled before its first task are copied (and
   * not its containers). Retry (absent): every successful task is copied, except the containers
   * of the tasks that did not succeed.
   */
  readonly fromRef?: string;
  /**
   * Retry: failed tasks that continue rather than being done again, by original task id — a
   * SUB_WORKFLOW whose child is retried too. Each is copied open (IN_PROGRESS, waiting on the
   * given child run) under the given task id.
   */
  readonly resumed?: ReadonlyMap<string, { readonly taskId: string; readonly subWorkflowId: string }>;
}

export function copyTasksForNewRun(request: CopyRequest): TaskRecord[] {
  const { tasks, fromRef } = request;
  let kept: TaskRecord[];
  let redone: string[];
  if (fromRef !== undefined) {
    const from = tasks.find((task) => task.referenceTaskName === fromRef);
    const cut = from?.seq ?? Number.POSITIVE_INFINITY;
    kept = tasks.filter((task) => task.seq < cut && isSuccessfulTaskStatus(task.status));
    redone = [fromRef];
  } else {
    const latest = latestAttempts(tasks);
    kept = latest.filter((task) => isSuccessfulTaskStatus(task.status) || request.resumed?.has(task.taskId));
    redone = latest
      .filter((task) => !isSuccessfulTaskStatus(task.status))
      .map((task) => task.referenceTaskName);
  }
  const containers = new Set(
    redone.flatMap((ref) => containerRefs(request.definition.tasks, definitionRef(ref))),
  );
  return kept
    .filter((task) => !containers.has(definitionRef(task.referenceTaskName)))
    .map((task, index) => {
      const copy = copyTask(task, request, index + 1);
      const resumed = request.resumed?.get(task.taskId);
      return resumed ? resumeTask(copy, resumed.taskId, resumed.subWorkflowId) : copy;
    });
}

/** An open copy of a failed SUB_WORKFLOW task, waiting on the retried child run. */
function resumeTask(copy: TaskRecord, taskId: string, subWorkflowId: string): TaskRecord {
  const open: TaskRecord = copyWith(copy, {
    taskId,
    status: 'IN_PROGRESS',
    endTime: 0,
    subWorkflowId,
    outputData: copyWith(copy.outputData, { subWorkflowId }),
  });
  delete open.reasonForIncompletion;
  return open;
}

/** The last attempt of each ref, in seq order. */
function latestAttempts(tasks: readonly TaskRecord[]): TaskRecord[] {
  const byRef = new Map<string, TaskRecord>();
  for (const task of tasks) byRef.set(task.referenceTaskName, task);
  return [...byRef.values()].sort((a, b) => a.seq - b.seq);
}

function copyTask(task: TaskRecord, request: CopyRequest, seq: number): TaskRecord {
  const copy: TaskRecord = copyWith(structuredClone(task), {
    taskId: request.newId(),
    workflowInstanceId: request.newWorkflowId,
    seq,
    executed: false,
    retried: false,
  });
  delete copy.retriedTaskId;
  return copy;
}

/** A loop iteration's ref (`x__3`) names the definition node `x`. */
function definitionRef(ref: string): string {
  return ref.replace(/__\d+$/, '');
}

/** Refs of the containers holding `ref`, outermost first; empty at the top level or when absent. */
function containerRefs(list: readonly WorkflowTask[], ref: string): string[] {
  for (const task of list) {
    if (typeof task !== 'object' || task === null) continue;
    if (task.taskReferenceName === ref) return [];
    for (const child of childTaskLists(task)) {
      const inner = containerRefs(child.tasks, ref);
      if (inner.length > 0 || child.tasks.some((t) => t.taskReferenceName === ref))
        return [task.taskReferenceName, ...inner];
    }
  }
  return [];
}
