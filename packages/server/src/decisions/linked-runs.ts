import {
  isTerminalWorkflowStatus,
  type JsonObject,
  type JsonValue,
  type RunRecord,
  type TaskRecord,
  type WorkflowDef,
  type WorkflowStatus,
} from '@baton/protocol';

import {
  buildExpressionDocument,
  resolveValue,
  type Decision,
  type EngineEvent,
  type StartCommand,
} from '../engine/index.js';
import { copyWith } from '../copy-with.js';

/**
 * Runs that start or wake other runs: SUB_WORKFLOW children, START_WORKFLOW runs, failure
 * workflows, and the parent woken when its child ends. The executor collects these as
 * follow-ups while it applies a decision and works them off, in the same transaction, once the
 * decision that caused them is fully written (so a child ending at once wakes a parent whose
 * task is already stored). Lock order: a child's end locks the child, then its parent.
 */

/** How deep children may nest (a definition that includes itself would otherwise never stop). */
export const MAX_NESTING = 32;
/**
 * Runs one transaction may start beyond those first decisions ask for (`firstDecisionOn`): the
 * runs its new runs start, those a run decided again starts, failure workflows. A loop guard: a
 * first decision's starts are bounded by that decision (a dynamic fork by BATON_MAX_FORK_BRANCHES,
 * a static one by its definition), so a fork of many SUB_WORKFLOWs starts every child, while a
 * workflow that starts itself, or a parent that instantly ending children wake again and again,
 * meets the guard.
 */
export const MAX_RUNS_PER_STEP = 100;

export type FollowUp =
  | { readonly kind: 'event'; readonly workflowId: string; readonly event: EngineEvent }
  | {
      readonly kind: 'start';
      readonly parent: RunRecord;
      readonly command: StartCommand;
      /** Asked for by a decision outside the loop guard (`firstDecisionOn`). */
      readonly first: boolean;
    }
  | {
      readonly kind: 'failure-workflow';
      readonly workflowId: string;
      readonly definition: WorkflowDef;
      readonly input: JsonObject;
      readonly correlationId?: string;
      readonly taskToDomain: Record<string, string>;
      readonly priority: number;
    };

/** The follow-ups of one top-level call (one transaction attempt). */
export interface Session {
  readonly followUps: FollowUp[];
  /** Runs started so far that count against MAX_RUNS_PER_STEP. */
  runsStarted: number;
  /** The run the transaction was opened for (started, retried or decided on an event). */
  readonly root: string;
  /** Runs this transaction started. */
  readonly started: Set<string>;
  /** Runs this transaction has decided on at least once. */
  readonly decided: Set<string>;
}

export function newSession(root: string): Session {
  return { followUps: [], runsStarted: 0, root, started: new Set(), decided: new Set() };
}

/**
 * Whether the runs a decision on `workflowId` asks for stay outside the loop guard, noting the
 * decision: only the first decision on the root or on a run that was there before this
 * transaction. Its starts are bounded by that one decision; a run this transaction started, or
 * one decided again (a parent its instantly ending children wake, over and over), counts.
 */
export function firstDecisionOn(session: Session, workflowId: string): boolean {
  const first = !session.decided.has(workflowId) && !startedFromRoot(session, workflowId);
  session.decided.add(workflowId);
  return first;
}

/**
 * Whether this transaction started `workflowId` on the way from its root (a child, a child's
 * child): runs such a run starts past the loop guard mean a workflow that starts itself.
 */
export function startedFromRoot(session: Session, workflowId: string): boolean {
  return workflowId !== session.root && session.started.has(workflowId);
}

/** Whether this decision ended the run (it was open before). */
export function endedBy(before: WorkflowStatus, decision: Decision): boolean {
  return (
    !decision.ignored && !isTerminalWorkflowStatus(before) && isTerminalWorkflowStatus(decision.run.status)
  );
}

/**
 * Statuses that start the definition's failure workflow
 * (docs/design/runs.md#terminate-and-the-failure-workflow: termination too).
 */
export function startsFailureWorkflow(status: WorkflowStatus): boolean {
  return status === 'FAILED' || status === 'TIMED_OUT' || status === 'TERMINATED';
}

/** Whether this decision reopened the run (it had ended: a child's retry, a dead-letter requeue). */
export function reopenedBy(before: WorkflowStatus, decision: Decision): boolean {
  return (
    !decision.ignored && isTerminalWorkflowStatus(before) && !isTerminalWorkflowStatus(decision.run.status)
  );
}

/**
 * The event that tells a parent its child, which had ended, runs again (same id): the parent
 * resumes as when the child is retried (Conductor's `updateAndPushParents`), and so on up.
 */
export function childReopenedEvent(child: RunRecord): EngineEvent | undefined {
  if (child.parentWorkflowId === undefined || child.parentWorkflowTaskId === undefined) return undefined;
  return {
    type: 'CHILD_RETRIED',
    taskId: child.parentWorkflowTaskId,
    previousChildId: child.workflowId,
    childWorkflowId: child.workflowId,
  };
}

/** The event that tells a parent its child ended. */
export function childEndedEvent(child: RunRecord): EngineEvent | undefined {
  if (child.parentWorkflowId === undefined || child.parentWorkflowTaskId === undefined) return undefined;
  return {
    type: 'CHILD_ENDED',
    taskId: child.parentWorkflowTaskId,
    childWorkflowId: child.workflowId,
    status: child.status,
    output: child.output,
    ...(child.reasonForIncompletion !== undefined && { reason: child.reasonForIncompletion }),
    child: `${child.workflowName}.${child.workflowVersion}/${child.workflowId}`,
  };
}

/** The failure workflow's name: `failureWorkflow`, which may be an expression on the run. */
export function failureWorkflowName(run: RunRecord, tasks: readonly TaskRecord[]): string | undefined {
  const raw = run.workflowDefinition.failureWorkflow;
  if (typeof raw !== 'string' || raw.trim() === '') return undefined;
  if (!raw.includes('${')) return raw;
  const resolved: JsonValue = resolveValue(raw, buildExpressionDocument(run, tasks));
  return typeof resolved === 'string' && resolved !== '' ? resolved : undefined;
}

/**
 * Conductor's failure-workflow input: the failed run's input plus `workflowId`, `reason`,
 * `failureStatus`, `failureTaskId` (when a task failed it or a TERMINATE task ended it) and
 * `failedWorkflow` (the run with its tasks).
 */
export function failureWorkflowInput(run: RunRecord, tasks: readonly TaskRecord[]): JsonObject {
  const failedRef = run.failedReferenceTaskNames[run.failedReferenceTaskNames.length - 1];
  // A run ended by a TERMINATE task names that task (Conductor's TerminateWorkflowException
  // carries it: FailureWorkflowSpec expects `failureTaskId` = the TERMINATE task's id).
  const failedTask =
    failedRef === undefined
      ? [...tasks].reverse().find((task) => task.taskType === 'TERMINATE' && task.status === 'COMPLETED')
      : [...tasks].reverse().find((task) => task.referenceTaskName === failedRef);
  const input: JsonObject = copyWith(structuredClone(run.input), {
    workflowId: run.workflowId,
    reason: run.reasonForIncompletion ?? null,
    failureStatus: run.status,
    failedWorkflow: structuredClone(copyWith(run, { tasks }) as unknown as JsonObject),
  });
  if (failedTask) input.failureTaskId = failedTask.taskId;
  return input;
}

/** The run's tasks after a decision: its own records with the decision's changes applied. */
export function tasksAfter(tasks: readonly TaskRecord[], decision: Decision): TaskRecord[] {
  const updated = new Map(decision.updatedTasks.map((task) => [task.taskId, task]));
  return [...tasks.map((task) => updated.get(task.taskId) ?? task), ...decision.newTasks];
}

export function missingDefinitionReason(name: string, version: number | undefined): string {
  return version === undefined
    ? `No such workflow found by name: ${name}`
    : `No such workflow found by name: ${name}, version: ${version}`;
}
