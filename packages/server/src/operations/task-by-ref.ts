import { isTerminalTaskStatus, type JsonObject, type TaskRecord, type TaskResult } from '@baton/protocol';

import type { TaskAccess } from '../auth/task-access.js';
import { copyWith } from '../copy-with.js';
import { documentRefOf, judgeResult, taskKindOf } from '../engine/index.js';
import { fail } from '../errors.js';
import type { Tx } from '../store/store.js';
import type { Judged } from './result-refusals.js';

/**
 * The open task a completion by name means: the latest open one with exactly this ref, else
 * (a task inside a loop named without its `__N`) the latest open one of that plain ref. Tasks
 * only the interpreter ends (JOIN, DO_WHILE, …) are never meant.
 */
export function openTaskByRef(tasks: readonly TaskRecord[], ref: string): TaskRecord | undefined {
  return latestTaskByRef(
    tasks.filter((t) => !isTerminalTaskStatus(t.status)),
    ref,
  );
}

/** The latest task with this ref (or plain ref of a loop), of those an outside result may mean. */
export function latestTaskByRef(tasks: readonly TaskRecord[], ref: string): TaskRecord | undefined {
  const candidates = tasks.filter((t) => taskKindOf(t.workflowTask)?.engineOnly !== true);
  const exact = candidates.filter((t) => t.referenceTaskName === ref);
  const pool = exact.length > 0 ? exact : candidates.filter((t) => documentRefOf(t) === ref);
  return pool.reduce<TaskRecord | undefined>(
    (latest, t) => (!latest || t.seq > latest.seq ? t : latest),
    undefined,
  );
}

/**
 * A result for the open task of `ref` in run `workflowId`, from outside (HUMAN and WAIT tasks
 * completed by name), in the caller's transaction: the run locked, the task found and judged, and
 * an accepted result (the body merged into the task's output) given to `apply`. Answers the task's
 * id (undefined when the run has no task by that name) and, for a result refused, why.
 */
export async function resultByRefIn(
  tx: Tx,
  posted: {
    workflowId: string;
    ref: string;
    status: TaskResult['status'];
    output: JsonObject;
    workerId?: string | undefined;
    access: TaskAccess;
  },
  apply: (result: TaskResult, open: TaskRecord) => Promise<unknown>,
): Promise<{ taskId: string | undefined; refused?: Judged }> {
  const { workflowId, ref, status, output, workerId, access } = posted;
  const run = await tx.lockRun(workflowId);
  if (!run) throw fail('RUN_NOT_FOUND', { workflowId });
  // Every open task is in the decide set: no need to read the run's whole history.
  const open = openTaskByRef(await tx.getDecideTasks(workflowId), ref);
  const result = { status, outputData: output, ...(workerId !== undefined && { workerId }) };
  if (!open) {
    // The step by that name has ended: refused unless this repeats its recorded result.
    const ended = latestTaskByRef(await tx.getRunTasks(workflowId), ref);
    if (!ended) return { taskId: undefined };
    access.check(ended);
    const verdict = judgeResult(ended, result, true);
    return verdict.kind === 'refuse'
      ? { taskId: ended.taskId, refused: { task: ended, applied: false, verdict } }
      : { taskId: ended.taskId };
  }
  access.check(open);
  const verdict = judgeResult(open, result, true);
  if (verdict.kind === 'refuse')
    return { taskId: open.taskId, refused: { task: open, applied: false, verdict } };
  await apply(
    {
      taskId: open.taskId,
      workflowInstanceId: workflowId,
      status,
      outputData: copyWith(open.outputData, output),
      ...(workerId !== undefined && { workerId }),
    },
    open,
  );
  return { taskId: open.taskId };
}
