import {
  type BulkOperation,
  type BulkResponse,
  isSuccessfulTaskStatus,
  isTerminalTaskStatus,
  isTerminalWorkflowStatus,
  type JsonObject,
  type RunLinks,
  type RerunRequest,
  type RunRecord,
  type SkipRequest,
  type TaskRecord,
} from '@baton/protocol';

import {
  copyTasksForNewRun,
  findTask,
  kindNameOf,
  MAX_VARIABLES_KB,
  newRunRecord,
  pauseRejection,
  restartRejection,
  resumeRejection,
  retryRejection,
  signaledTaskId,
  skipRejection,
  successorNote,
  terminateRejection,
  type Decision,
  type EngineEvent,
  type Rejection,
  type SignalStatus,
} from '../engine/index.js';
import { BatonError, fail, failWith } from '../errors.js';
import { newId } from '../ids.js';
import type { WakeBus } from '../queue/wake-bus.js';
import type { Store, Tx } from '../store/store.js';
import { afterCommit, type AfterCommit, type DecisionApplier } from '../decisions/decision-applier.js';
import { type HandOffAttempts, renewAttempt, settledWith } from '../decisions/after-commit.js';
import { MAX_NESTING } from '../decisions/linked-runs.js';
import { readsMailbox } from '../decisions/run-wake.js';
import type { ArchiveReader, ArchivedRunDoc } from '../archive/archive-reader.js';
import { copyWith } from '../copy-with.js';

export const MAX_BULK_IDS = 1000;

export interface SignalAnswer {
  /** The mailbox message the signal was appended as (absent for a task signal). */
  messageId?: string;
  /** The task the signal completed; absent when no task was blocked (the message stays in the mailbox). */
  taskId?: string;
  /** The run that task belongs to: the signaled run, or one of its running child runs. */
  workflowId?: string;
}

/**
 * Operators' run operations (docs/design/runs.md). Each is one transaction that locks the run
 * first; a state that does not allow the operation answers 409 naming the current status and
 * changes nothing. Retry, restart and rerun make new runs linked to the original, which records
 * them.
 */
export class RunControlService {
  constructor(
    private readonly store: Store,
    private readonly executor: DecisionApplier,
    private readonly wake: WakeBus,
    /** Archived runs can be restarted and rerun: they need only their definition, input and tasks. */
    private readonly archive?: ArchiveReader,
    /** This node's waiting polls, handed the tasks an operation queues (handout/parked-polls.ts). */
    private readonly parkedAttempt?: HandOffAttempts,
  ) {}

  async pause(workflowId: string): Promise<void> {
    await this.operate(workflowId, (run) => pauseRejection(run), { type: 'PAUSE' });
  }

  async resume(workflowId: string): Promise<void> {
    await this.operate(workflowId, (run) => resumeRejection(run), { type: 'RESUME' });
  }

  async terminate(workflowId: string, reason?: string): Promise<void> {
    const why = reason !== undefined && reason.trim() !== '' ? reason : 'Terminated by a request';
    await this.operate(workflowId, (run) => terminateRejection(run), { type: 'TERMINATE', reason: why });
  }

  async skip(workflowId: string, ref: string, request: SkipRequest): Promise<void> {
    await this.operate(workflowId, (run, tasks) => skipRejection(run, tasks, ref), {
      type: 'SKIP_TASK',
      taskRef: ref,
      ...(request.taskInput !== undefined && { taskInput: request.taskInput }),
      ...(request.taskOutput !== undefined && { taskOutput: request.taskOutput }),
    });
  }

  /** Appends a message to the run's mailbox; a blocked reader takes it at once. Answers its id. */
  async sendMessage(workflowId: string, payload: JsonObject): Promise<string> {
    return this.inTransaction(async (tx, after) => {
      const run = await this.lockOpenRun(tx, workflowId, 'messages');
      const messageId = newId();
      await tx.appendRunMessage({ id: messageId, workflowId, payload, receivedAt: this.executor.now() });
      if (readsMailbox(run)) await this.executor.handle(tx, workflowId, { type: 'MAILBOX' }, after);
      return messageId;
    });
  }

  /**
   * Wakes the run's first blocked task (WAIT without a timer, HUMAN, blocking
   * PULL_WORKFLOW_MESSAGES) with the payload. `appendToMailbox` (the workflow signal) first
   * appends the payload as a message; Conductor's task signal only completes the task. When
   * nothing in the run is blocked, the signal goes down into its running child runs (open
   * SUB_WORKFLOW tasks in seq order, depth first), as Conductor's does; the message stays in
   * the named run's mailbox. Nothing blocked anywhere: the answer names no task (the synchronous
   * task signal then answers 404, as Conductor's does).
   */
  async signal(
    workflowId: string,
    payload: JsonObject,
    status: SignalStatus = 'COMPLETED',
    appendToMailbox = true,
  ): Promise<SignalAnswer> {
    return this.inTransaction(async (tx, after) => {
      await this.lockOpenRun(tx, workflowId, 'signals');
      const answer: SignalAnswer = {};
      if (appendToMailbox) {
        answer.messageId = newId();
        await tx.appendRunMessage({
          id: answer.messageId,
          workflowId,
          payload,
          receivedAt: this.executor.now(),
        });
      }
      const reached = await this.signalDown(tx, after, workflowId, payload, status, answer.messageId, 0);
      if (reached !== undefined) {
        answer.taskId = reached.taskId;
        answer.workflowId = reached.workflowId;
      }
      return answer;
    });
  }

  /** Signals one run, then (nothing blocked) its running children; answers the task reached. */
  private async signalDown(
    tx: Tx,
    after: AfterCommit,
    workflowId: string,
    payload: JsonObject,
    status: SignalStatus,
    messageId: string | undefined,
    depth: number,
  ): Promise<{ workflowId: string; taskId: string } | undefined> {
    const decision = await this.executor.handle(
      tx,
      workflowId,
      { type: 'SIGNAL', status, output: payload, ...(messageId !== undefined && { messageId }) },
      after,
    );
    const taskId = decision && signaledTaskId(decision);
    if (taskId !== undefined) return { workflowId, taskId };
    if (!decision || depth >= MAX_NESTING) return undefined;
    for (const task of await tx.getRunTasks(workflowId)) {
      if (task.subWorkflowId === undefined || isTerminalTaskStatus(task.status)) continue;
      if (kindNameOf(task.workflowTask) !== 'SUB_WORKFLOW') continue;
      const child = await tx.lockRun(task.subWorkflowId);
      if (!child || isTerminalWorkflowStatus(child.status)) continue;
      const reached = await this.signalDown(
        tx,
        after,
        child.workflowId,
        payload,
        status,
        undefined,
        depth + 1,
      );
      if (reached !== undefined) return reached;
    }
    return undefined;
  }

  /**
   * Merges `variables` into a running or paused run's variables, in one transaction that holds
   * the run's lock (as SET_VARIABLE does, at most 256 KB), then re-evaluates a running run.
   * 404 unknown run, 409 ended run, 400 over the size limit.
   */
  async updateVariables(workflowId: string, variables: JsonObject): Promise<void> {
    await this.inTransaction(async (tx, after) => {
      const run = await this.lockOpenRun(tx, workflowId, 'variable updates');
      const merged = copyWith(run.variables, structuredClone(variables));
      const size = Buffer.byteLength(JSON.stringify(merged), 'utf8');
      if (size > MAX_VARIABLES_KB * 1024) {
        throw fail('RUN_VARIABLES_TOO_LARGE', { size, workflowId, maxKb: MAX_VARIABLES_KB }, [
          { path: 'body', message: `variables over ${MAX_VARIABLES_KB} KB` },
        ]);
      }
      await tx.updateRun(copyWith(run, { variables: merged, updateTime: this.executor.now() }));
      if (run.status === 'RUNNING') await this.executor.handle(tx, workflowId, { type: 'DECIDE' }, after);
    });
  }

  /** A new run continuing this one from its failed task, reusing completed tasks' outputs. */
  retry(workflowId: string): Promise<string> {
    return this.successor(workflowId, 'retry', {});
  }

  /** A new run starting over with the same input (the original definition, or the latest). */
  restart(workflowId: string, useLatestDefinitions = false): Promise<string> {
    return this.successor(workflowId, 'restart', { useLatestDefinitions });
  }

  /** A new run resuming from a named task (with optional new task and run input). */
  rerun(workflowId: string, request: RerunRequest): Promise<string> {
    return this.successor(workflowId, 'rerun', { rerun: request });
  }

  /** The same operation over each id, each in its own transaction, with a result per id. */
  async bulk(
    operation: BulkOperation,
    workflowIds: readonly string[],
    options: { reason?: string; useLatestDefinitions?: boolean } = {},
  ): Promise<BulkResponse & { linkedRuns?: Record<string, string> }> {
    const result: BulkResponse & { linkedRuns?: Record<string, string> } = {
      bulkSuccessfulResults: [],
      bulkErrorResults: {},
    };
    // Retry and restart make new runs (Conductor continues each in place): say which.
    const linked = (id: string, successor: string): void => {
      (result.linkedRuns ??= {})[id] = successor;
    };
    for (const id of new Set(workflowIds)) {
      try {
        switch (operation) {
          case 'pause':
            await this.pause(id);
            break;
          case 'resume':
            await this.resume(id);
            break;
          case 'terminate':
            await this.terminate(id, options.reason);
            break;
          case 'retry':
            linked(id, await this.retry(id));
            break;
          case 'restart':
            linked(id, await this.restart(id, options.useLatestDefinitions ?? false));
            break;
        }
        result.bulkSuccessfulResults.push(id);
      } catch (err) {
        if (!(err instanceof BatonError)) throw err;
        result.bulkErrorResults[id] = err.message;
      }
    }
    return result;
  }

  private async successor(
    workflowId: string,
    operation: 'retry' | 'restart' | 'rerun',
    options: { useLatestDefinitions?: boolean; rerun?: RerunRequest },
  ): Promise<string> {
    // An archived run's document is read before the transaction: no blob I/O under a lock.
    const hot = await this.store.read((tx) => tx.getRun(workflowId));
    const archived = hot === undefined && this.archive ? await this.archive.find(workflowId) : undefined;
    return this.inTransaction(async (tx, after) => {
      const locked = await tx.lockRun(workflowId);
      if (!locked && archived) return this.successorOfArchived(tx, after, archived, operation, options);
      const original = locked ?? (await this.requireRun(tx, workflowId));
      throwIf(
        operation === 'retry'
          ? retryRejection(original)
          : restartRejection(original, operation === 'restart' ? 'restarted' : 'rerun'),
      );
      return this.successorIn(tx, after, original, operation, options);
    });
  }

  /**
   * Restart and rerun of an archived run: the new run is made from the archived document (its
   * definition snapshot, input and tasks) and the link is recorded in the archive's index row.
   * Retry is refused: besides making the new run it retries the original's failed child runs,
   * which an archived run no longer has in the hot tables; rerun from the failed task does the same.
   */
  private async successorOfArchived(
    tx: Tx,
    after: AfterCommit,
    archived: ArchivedRunDoc,
    operation: 'retry' | 'restart' | 'rerun',
    options: { useLatestDefinitions?: boolean; rerun?: RerunRequest },
  ): Promise<string> {
    const original: RunRecord = copyWith(archived.doc.run, { links: archived.row.links });
    if (operation === 'retry') {
      throw fail('RUN_ARCHIVED', {
        detail: `Workflow ${original.workflowId} is archived: it cannot be retried; rerun it from its failed task (reRunFromTaskId) or restart it`,
      });
    }
    throwIf(restartRejection(original, operation === 'restart' ? 'restarted' : 'rerun'));
    return this.successorIn(tx, after, original, operation, options, undefined, archived.doc.tasks);
  }

  /**
   * Makes the new run of a locked original and records it on the original. A retry also
   * retries the failed child runs of its failed SUB_WORKFLOW tasks (in this transaction), and
   * the new run waits on those children instead of starting them over.
   */
  private async successorIn(
    tx: Tx,
    after: AfterCommit,
    original: RunRecord,
    operation: 'retry' | 'restart' | 'rerun',
    options: { useLatestDefinitions?: boolean; rerun?: RerunRequest },
    parent?: { workflowId: string; taskId: string },
    /** The tasks of an archived original (it has none in the hot tables). */
    archivedTasks?: TaskRecord[],
  ): Promise<string> {
    const workflowId = original.workflowId;
    const tasks = operation === 'restart' ? [] : (archivedTasks ?? (await tx.getRunTasks(workflowId)));
    const fromRef =
      options.rerun?.reRunFromTaskRefName ?? rerunRefOfTaskId(tasks, options.rerun?.reRunFromTaskId);
    if (fromRef !== undefined) checkRerunRef(original, tasks, fromRef);

    let definition = original.workflowDefinition;
    if (operation === 'restart' && options.useLatestDefinitions === true) {
      const latest = await tx.getWorkflowDef(original.workflowName);
      if (!latest) throw fail('DEFINITION_NOT_FOUND', { name: original.workflowName });
      const { createTime: _c, updateTime: _u, ...snapshot } = latest;
      definition = snapshot;
    }
    const now = this.executor.now();
    const successorId = newId();
    const run = newRunRecord({
      workflowId: successorId,
      definition,
      input: structuredClone(options.rerun?.workflowInput ?? original.input),
      priority: original.priority,
      taskToDomain: original.taskToDomain,
      now,
      ...(original.correlationId !== undefined && { correlationId: original.correlationId }),
      ...(parent !== undefined && {
        parentWorkflowId: parent.workflowId,
        parentWorkflowTaskId: parent.taskId,
      }),
      // A child retried, restarted or rerun on its own stays its parent's child: the parent's
      // task follows it.
      ...(parent === undefined &&
        original.parentWorkflowId !== undefined &&
        original.parentWorkflowTaskId !== undefined && {
          parentWorkflowId: original.parentWorkflowId,
          parentWorkflowTaskId: original.parentWorkflowTaskId,
        }),
    });
    // Retry and rerun continue the original: its variables as they stood.
    if (operation !== 'restart') run.variables = structuredClone(original.variables);
    // The same definition keeps where it came from; the registry's latest is the registry's.
    if (original.definitionFromData === true && definition === original.workflowDefinition)
      run.definitionFromData = true;
    run.links = { [LINK_OF[operation]]: workflowId };

    const resumed =
      operation === 'retry' ? await this.retryChildren(tx, after, tasks, successorId) : new Map();
    const copies =
      operation === 'restart' || (operation === 'rerun' && fromRef === undefined)
        ? []
        : copyTasksForNewRun({
            definition,
            tasks,
            newWorkflowId: successorId,
            newId,
            resumed,
            ...(fromRef !== undefined && { fromRef }),
          });
    const event: EngineEvent =
      fromRef !== undefined
        ? {
            type: 'RERUN_FROM',
            taskRef: fromRef,
            ...(options.rerun?.taskInput !== undefined && { taskInput: options.rerun.taskInput }),
          }
        : { type: 'START' };
    await this.executor.startPrepared(tx, run, copies, event, after);
    if (parent === undefined) await this.resumeParent(tx, after, original, successorId);

    const byKey = LINK_BY[operation];
    const links: RunLinks = copyWith(original.links, {
      [byKey]: [...(original.links[byKey] ?? []), successorId],
    });
    if (archivedTasks) await tx.updateArchivedRunLinks(workflowId, links);
    else await tx.updateRun(copyWith(original, { links, updateTime: now }));
    return successorId;
  }

  /**
   * A child run retried, restarted or rerun on its own: its parent's SUB_WORKFLOW task follows
   * the new child and a parent that task ended resumes (`CHILD_RETRIED`, decided under the
   * parent's lock; each ancestor it reopens tells its own parent the same way), as Conductor's
   * `updateAndPushParents` does after a retry, restart or rerun of a child.
   */
  private async resumeParent(
    tx: Tx,
    after: AfterCommit,
    child: RunRecord,
    successorId: string,
  ): Promise<void> {
    if (child.parentWorkflowId === undefined || child.parentWorkflowTaskId === undefined) return;
    await this.executor.handle(
      tx,
      child.parentWorkflowId,
      {
        type: 'CHILD_RETRIED',
        taskId: child.parentWorkflowTaskId,
        previousChildId: child.workflowId,
        childWorkflowId: successorId,
      },
      after,
    );
  }

  /** Retries the retryable child runs of failed SUB_WORKFLOW tasks; answers how each task resumes. */
  private async retryChildren(
    tx: Tx,
    after: AfterCommit,
    tasks: readonly TaskRecord[],
    successorId: string,
  ): Promise<Map<string, { taskId: string; subWorkflowId: string }>> {
    const resumed = new Map<string, { taskId: string; subWorkflowId: string }>();
    const latest = new Map(tasks.map((task) => [task.referenceTaskName, task]));
    for (const task of latest.values()) {
      if (task.subWorkflowId === undefined || kindNameOf(task.workflowTask) !== 'SUB_WORKFLOW') continue;
      if (isSuccessfulTaskStatus(task.status) || !isTerminalTaskStatus(task.status)) continue;
      const child = await tx.lockRun(task.subWorkflowId);
      if (!child || retryRejection(child) !== undefined) continue;
      const taskId = newId();
      const childId = await this.successorIn(
        tx,
        after,
        child,
        'retry',
        {},
        { workflowId: successorId, taskId },
      );
      resumed.set(task.taskId, { taskId, subWorkflowId: childId });
    }
    return resumed;
  }

  /** Locks the run, refuses what its state does not allow, and decides on the event. */
  private async operate(
    workflowId: string,
    reject: (run: RunRecord, tasks: readonly TaskRecord[]) => Rejection | undefined,
    event: EngineEvent,
  ): Promise<Decision | undefined> {
    return this.inTransaction(async (tx, after) => {
      const run = await this.requireRun(tx, workflowId);
      const tasks = event.type === 'SKIP_TASK' ? await tx.getRunTasks(workflowId) : [];
      throwIf(reject(run, tasks));
      return this.executor.handle(tx, workflowId, event, after);
    });
  }

  private async inTransaction<T>(fn: (tx: Tx, after: AfterCommit) => Promise<T>): Promise<T> {
    const after = afterCommit();
    const transaction = this.store.transaction((tx) => {
      // An attempt run again hands nothing its last one reserved.
      renewAttempt(after, this.parkedAttempt);
      return fn(tx, after);
    });
    const out = await settledWith(after, transaction);
    this.executor.afterCommitted(after, this.wake);
    return out;
  }

  private async requireRun(tx: Tx, workflowId: string): Promise<RunRecord> {
    const run = await tx.lockRun(workflowId);
    if (run) return run;
    // An archived run has ended: operations on a running run are a conflict, not "unknown".
    const archived = this.archive ? await tx.getArchivedRun(workflowId) : undefined;
    if (archived) {
      throw fail('RUN_ARCHIVED', {
        detail: `Workflow ${workflowId} has ended (${archived.status}) and is archived: only restart and rerun apply`,
      });
    }
    throw fail('RUN_NOT_FOUND', { workflowId });
  }

  private async lockOpenRun(tx: Tx, workflowId: string, what: string): Promise<RunRecord> {
    const run = await this.requireRun(tx, workflowId);
    if (isTerminalWorkflowStatus(run.status))
      throw fail('RUN_ENDED', {
        detail: `Workflow ${workflowId} has ended (${run.status}): it takes no more ${what}${successorNote(run)}`,
      });
    return run;
  }
}

const LINK_OF = { retry: 'retry_of', restart: 'restart_of', rerun: 'rerun_of' } as const;

const LINK_BY = { retry: 'retried_by', restart: 'restarted_by', rerun: 'rerun_by' } as const;

function throwIf(rejection: Rejection | undefined): void {
  if (!rejection) return;
  throw failWith(rejection.code, rejection.message);
}

/** The ref of the task Conductor's `reRunFromTaskId` names (JsonJQTransformSpec reruns so). */
function rerunRefOfTaskId(tasks: readonly TaskRecord[], taskId: string | undefined): string | undefined {
  if (taskId === undefined) return undefined;
  const task = tasks.find((candidate) => candidate.taskId === taskId);
  if (!task) {
    throw fail('RERUN_TASK_NOT_IN_RUN', { taskId }, [
      { path: 'body.reRunFromTaskId', message: 'no such task in this workflow', invalidValue: taskId },
    ]);
  }
  return task.referenceTaskName;
}

function checkRerunRef(run: RunRecord, tasks: readonly TaskRecord[], ref: string): void {
  const path = 'body.reRunFromTaskRefName';
  if (!findTask(run.workflowDefinition, ref)) {
    throw fail('RERUN_TASK_NOT_IN_DEFINITION', { workflowId: run.workflowId, ref }, [
      { path, message: 'no such task in the definition', invalidValue: ref },
    ]);
  }
  if (!tasks.some((task) => task.referenceTaskName === ref)) {
    throw fail('RERUN_TASK_NEVER_RAN', { ref, workflowId: run.workflowId }, [
      { path, message: 'the task never ran in this workflow', invalidValue: ref },
    ]);
  }
}
