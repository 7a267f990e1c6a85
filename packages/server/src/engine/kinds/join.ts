import {
  isSuccessfulTaskStatus,
  isTerminalTaskStatus,
  type JsonObject,
  type TaskRecord,
  type ValidationError,
} from '@baton/protocol';
import type { RunState } from '../run-state.js';
import type { Flow } from './flow.js';
import type { TaskKind } from './kind.js';
import type { WaitingExplainer } from './waiting-explanation.js';
import { assembledOutputRefusal, failForAssembledOutput } from '../payload-bounds.js';
import { isSettled } from './settled.js';
import { fieldProblem, resolvedInput, systemTask } from './system-task.js';
import { copyWith } from '../../copy-with.js';

/**
 * JOIN (Conductor's `Join`): IN_PROGRESS until every task of `joinOn` is done, then COMPLETED
 * with `{ref: output}` of each (COMPLETED_WITH_ERRORS when an optional one failed). Inside a
 * loop its `joinOn` refs carry the iteration's suffix; after FORK_JOIN_DYNAMIC they are the
 * forked refs. The refs are kept in its input (`joinOn`), as Conductor does.
 */

export function joinOnOf(task: TaskRecord): readonly string[] {
  const refs: unknown = task.inputData.joinOn;
  if (!Array.isArray(refs)) return [];
  // The record's own list when it is clean (it always is when the engine wrote it): a join is
  // read on every decision of its run, and a copy of a wide fork's refs each time adds up.
  return refs.every((ref): ref is string => typeof ref === 'string')
    ? refs
    : refs.filter((ref): ref is string => typeof ref === 'string');
}

/** Whether the task a join waits on under `ref` exists and is done with all it stands for. */
function refSettled(state: RunState, ref: string): boolean {
  const task = state.latestByRef(ref);
  return task !== undefined && isSettled(state, task);
}

/**
 * Per decision, the ref each open join last found unsettled. A decision rechecks a join once
 * for every ended task it acts on, and in a wide fork most of those checks find the same ref
 * still open: asking it first makes such a check one lookup instead of a walk over the fork.
 * It is only a hint: a join completes only after a walk found every ref settled.
 */
const blockers = new WeakMap<RunState, Map<string, string>>();

/** A ref of the join's whose task is not settled yet, or undefined when every one is. */
function unsettledRef(state: RunState, join: TaskRecord): string | undefined {
  let memo = blockers.get(state);
  const last = memo?.get(join.taskId);
  if (last !== undefined && !refSettled(state, last)) return last;
  const refs = joinOnOf(join);
  // From the end: a fork's branches are handed out in order and tend to end in that order, so
  // the last open ref is found after few steps and stays open longest.
  for (let i = refs.length - 1; i >= 0; i--) {
    const ref = refs[i];
    if (ref === undefined || refSettled(state, ref)) continue;
    if (!memo) blockers.set(state, (memo = new Map<string, string>()));
    memo.set(join.taskId, ref);
    return ref;
  }
  return undefined;
}

function recheck(flow: Flow, join: TaskRecord): void {
  const state = flow.state;
  if (unsettledRef(state, join) !== undefined) return;
  const output: JsonObject = {};
  const withErrors: string[] = [];
  const failures: TaskRecord[] = [];
  for (const ref of joinOnOf(join)) {
    const task = state.latestByRef(ref);
    if (!task) return;
    if (Object.keys(task.outputData).length > 0) output[ref] = task.outputData;
    if (!isSuccessfulTaskStatus(task.status)) failures.push(task);
    else if (task.status === 'COMPLETED_WITH_ERRORS') withErrors.push(ref);
  }
  const refusal = assembledOutputRefusal(state, join, output);
  if (refusal !== undefined) {
    failForAssembledOutput(state, join, refusal);
    return;
  }
  const now = state.now;
  if (failures.length > 0) {
    const canceled = failures.every((task) => task.status === 'CANCELED');
    state.updateTask(join, {
      status: canceled ? 'CANCELED' : 'FAILED',
      outputData: output,
      reasonForIncompletion: failures.map((task) => task.reasonForIncompletion ?? 'null').join(' '),
      endTime: now,
      updateTime: now,
    });
    return;
  }
  state.updateTask(join, {
    status: withErrors.length > 0 ? 'COMPLETED_WITH_ERRORS' : 'COMPLETED',
    outputData: output,
    ...(withErrors.length > 0 && {
      reasonForIncompletion: `${withErrors.join(', ')} completed with errors`,
    }),
    endTime: now,
    updateTime: now,
  });
}

/** A join waits for the refs it watches that have not ended yet (JOIN and EXCLUSIVE_JOIN). */
export function joinWaiting(watches: (task: TaskRecord) => readonly string[]): WaitingExplainer {
  return {
    needs: () => ({ runTasks: true }),
    explain(task, facts) {
      const open = watches(task).filter((ref) => {
        const latest = facts.latestByRef?.get(ref);
        return !latest || !isTerminalTaskStatus(latest.status);
      });
      return {
        reason: 'join',
        message:
          open.length > 0
            ? `waiting: for ${open.join(', ')} to end`
            : 'waiting: for the branches it joins to end',
        waitingOn: open,
      };
    },
  };
}

export const joinKind: TaskKind = {
  kind: 'JOIN',
  retryable: false,
  waiting: joinWaiting(joinOnOf),
  engineOnly: true,
  schedule(sctx, node, request) {
    const taskId = sctx.ctx.newId();
    const suffix = request.scope?.suffix ?? '';
    const refs = request.joinOn ?? (Array.isArray(node.joinOn) ? node.joinOn.map((ref) => ref + suffix) : []);
    const task = systemTask(sctx, node, request, {
      taskId,
      status: 'IN_PROGRESS',
      inputData: copyWith(resolvedInput(sctx, node, taskId), { joinOn: [...refs] }),
    });
    return { ok: true, tasks: [task], commands: [] };
  },
  watches: joinOnOf,
  onScheduled: recheck,
  recheck,
  check(node, path) {
    const joinOn: unknown = node.joinOn;
    if (joinOn === undefined || joinOn === null) return [];
    if (!Array.isArray(joinOn) || !joinOn.every((ref) => typeof ref === 'string')) {
      return [fieldProblem(path, 'joinOn', node, 'joinOn must be a list of task reference names', joinOn)];
    }
    return [] as ValidationError[];
  },
};
