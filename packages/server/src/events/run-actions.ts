import { isTerminalWorkflowStatus, type JsonObject, type JsonValue, type TaskRecord } from '@baton/protocol';

import { terminateRejection } from '../engine/index.js';
import { fail, failWith } from '../errors.js';
import { newId } from '../ids.js';
import type { AfterCommit, DecisionApplier } from '../decisions/decision-applier.js';
import { openTaskByRef } from '../operations/task-by-ref.js';
import type { Tx } from '../store/store.js';
import { copyWith } from '../copy-with.js';

/** A start request as event actions and schedules give it (Conductor's StartWorkflowRequest). */
export interface StartRequest {
  name: string;
  version?: number;
  input?: JsonObject;
  correlationId?: string;
  taskToDomain?: Record<string, string>;
  priority?: number;
  event?: string;
}

/**
 * What event actions and schedules do to runs, inside the caller's transaction (so the message's
 * inbox row, its executions, a schedule's slot and the effect commit together or not at all).
 * Expected refusals (no such workflow, task already ended) throw `BatonError`, which the callers
 * record as a FAILED execution; they are raised before anything is written.
 */
export class RunActions {
  constructor(private readonly executor: DecisionApplier) {}

  async start(tx: Tx, request: StartRequest, after: AfterCommit): Promise<string> {
    const definition = await tx.getWorkflowDef(request.name, request.version);
    if (!definition) {
      throw request.version === undefined
        ? fail('DEFINITION_NOT_FOUND', { name: request.name })
        : fail('DEFINITION_VERSION_NOT_FOUND', { name: request.name, version: request.version });
    }
    const run = await this.executor.startRun(
      tx,
      {
        workflowId: newId(),
        definition,
        input: request.input ?? {},
        priority: clampPriority(request.priority),
        taskToDomain: request.taskToDomain ?? {},
        ...(request.correlationId !== undefined && { correlationId: request.correlationId }),
        ...(request.event !== undefined && { event: request.event }),
      },
      after,
    );
    return run.workflowId;
  }

  /** Completes or fails an open task named by id, or by run and reference name (the latest iteration). */
  async endTask(
    tx: Tx,
    target: { taskId?: string; workflowId?: string; taskRefName?: string },
    status: 'COMPLETED' | 'FAILED',
    output: JsonObject,
    reason: string | undefined,
    after: AfterCommit,
  ): Promise<TaskRecord> {
    let task: TaskRecord | undefined;
    if (target.taskId !== undefined && target.taskId !== '') {
      task = await tx.getTask(target.taskId);
      if (!task) throw fail('TASK_NOT_FOUND', { taskId: target.taskId });
      await tx.lockRun(task.workflowInstanceId);
      task = await tx.getTask(target.taskId);
    } else if (target.workflowId !== undefined && target.taskRefName !== undefined) {
      const run = await tx.lockRun(target.workflowId);
      if (!run) throw fail('RUN_NOT_FOUND', { workflowId: target.workflowId });
      task = openTaskByRef(await tx.getDecideTasks(target.workflowId), target.taskRefName);
      if (!task)
        throw fail('OPEN_TASK_BY_REF_NOT_FOUND', { workflowId: target.workflowId, ref: target.taskRefName });
    }
    if (!task) throw fail('TASK_NOT_NAMED');
    if (task.status !== 'IN_PROGRESS' && task.status !== 'SCHEDULED')
      throw fail('TASK_NOT_IN_PROGRESS', { taskId: task.taskId, status: task.status });
    const decision = await this.executor.handle(
      tx,
      task.workflowInstanceId,
      {
        type: 'TASK_RESULT',
        result: {
          taskId: task.taskId,
          workflowInstanceId: task.workflowInstanceId,
          status,
          outputData: copyWith(task.outputData, output),
          ...(reason !== undefined && { reasonForIncompletion: reason }),
        },
      },
      after,
    );
    if (!decision || decision.ignored) throw fail('TASK_TOOK_NO_RESULT', { taskId: task.taskId });
    return decision.updatedTasks.find((t) => t.taskId === task.taskId) ?? task;
  }

  async terminate(tx: Tx, workflowId: string, reason: string, after: AfterCommit): Promise<void> {
    const run = await tx.lockRun(workflowId);
    if (!run) throw fail('RUN_NOT_FOUND', { workflowId });
    const rejection = terminateRejection(run);
    if (rejection) throw failWith(rejection.code, rejection.message);
    await this.executor.handle(tx, workflowId, { type: 'TERMINATE', reason }, after);
  }

  /** Merges into the run's variables; `appendArray` appends to arrays instead of replacing them. */
  async updateVariables(
    tx: Tx,
    workflowId: string,
    variables: JsonObject,
    appendArray: boolean,
  ): Promise<JsonObject> {
    const run = await tx.lockRun(workflowId);
    if (!run) throw fail('RUN_NOT_FOUND', { workflowId });
    if (isTerminalWorkflowStatus(run.status))
      throw fail('RUN_ENDED', {
        detail: `Workflow ${workflowId} has ended (${run.status}): its variables are final`,
      });
    const merged: JsonObject = { ...run.variables };
    for (const [key, value] of Object.entries(variables)) {
      const current: JsonValue | undefined = merged[key];
      merged[key] =
        appendArray && Array.isArray(current)
          ? [...current, ...(Array.isArray(value) ? value : [value])]
          : value;
    }
    await tx.updateRun(copyWith(run, { variables: merged, updateTime: this.executor.now() }));
    return merged;
  }
}

function clampPriority(priority: number | undefined): number {
  if (priority === undefined || !Number.isInteger(priority)) return 0;
  return Math.max(0, Math.min(99, priority));
}
