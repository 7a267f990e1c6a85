import type { TaskRecord, ValidationError } from '@baton/protocol';
import type { RunState } from '../run-state.js';
import type { Flow } from './flow.js';
import type { TaskKind } from './kind.js';
import { joinWaiting } from './join.js';
import { isSettled } from './settled.js';
import { fieldProblem, resolvedInput, systemTask } from './system-task.js';
import { isSuccessfulTaskStatus } from '@baton/protocol';
import { copyWith } from '../../copy-with.js';

/**
 * EXCLUSIVE_JOIN (Conductor's `ExclusiveJoin`): completes with the output of the first task of
 * `joinOn` that was scheduled (SKIPPED ones passed over) once it is done; when none is, the same
 * over `defaultExclusiveJoinTask`. Fails when the chosen task failed.
 */

function refsOf(task: TaskRecord, field: 'joinOn' | 'defaultExclusiveJoinTask'): string[] {
  const refs: unknown = task.inputData[field];
  return Array.isArray(refs) ? refs.filter((ref): ref is string => typeof ref === 'string') : [];
}

/** The first scheduled, not skipped task of `refs`, and whether it is done. */
function pick(state: RunState, refs: readonly string[]): { task: TaskRecord; done: boolean } | undefined {
  for (const ref of refs) {
    const task = state.latestByRef(ref);
    if (!task || task.status === 'SKIPPED') continue;
    return { task, done: isSettled(state, task) };
  }
  return undefined;
}

function recheck(flow: Flow, join: TaskRecord): void {
  const state = flow.state;
  let found = pick(state, refsOf(join, 'joinOn'));
  if (!found?.done) found = pick(state, refsOf(join, 'defaultExclusiveJoinTask'));
  if (!found?.done) return;
  const now = state.now;
  if (!isSuccessfulTaskStatus(found.task.status)) {
    state.updateTask(join, {
      status: 'FAILED',
      reasonForIncompletion: `${found.task.reasonForIncompletion ?? 'null'} `,
      endTime: now,
      updateTime: now,
    });
    return;
  }
  state.updateTask(join, {
    status: 'COMPLETED',
    outputData: found.task.outputData,
    endTime: now,
    updateTime: now,
  });
}

function checkRefList(
  value: unknown,
  field: string,
  node: TaskRecord['workflowTask'],
  path: string,
): ValidationError[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value) && value.every((ref) => typeof ref === 'string')) return [];
  return [fieldProblem(path, field, node, `${field} must be a list of task reference names`, value)];
}

/** The refs an exclusive join watches: its `joinOn`, then its default task(s). */
const watchedRefs = (task: TaskRecord): string[] => [
  ...refsOf(task, 'joinOn'),
  ...refsOf(task, 'defaultExclusiveJoinTask'),
];

export const exclusiveJoinKind: TaskKind = {
  kind: 'EXCLUSIVE_JOIN',
  retryable: false,
  waiting: joinWaiting(watchedRefs),
  engineOnly: true,
  schedule(sctx, node, request) {
    const taskId = sctx.ctx.newId();
    const suffix = request.scope?.suffix ?? '';
    const withSuffix = (refs: unknown): string[] =>
      Array.isArray(refs)
        ? refs.filter((r): r is string => typeof r === 'string').map((r) => r + suffix)
        : [];
    const task = systemTask(sctx, node, request, {
      taskId,
      status: 'IN_PROGRESS',
      inputData: copyWith(resolvedInput(sctx, node, taskId), {
        joinOn: withSuffix(node.joinOn),
        defaultExclusiveJoinTask: withSuffix(node.defaultExclusiveJoinTask),
      }),
    });
    return { ok: true, tasks: [task], commands: [] };
  },
  watches: watchedRefs,
  onScheduled: recheck,
  recheck,
  check(node, path) {
    return [
      ...checkRefList(node.joinOn, 'joinOn', node, path),
      ...checkRefList(node.defaultExclusiveJoinTask, 'defaultExclusiveJoinTask', node, path),
    ];
  },
};
