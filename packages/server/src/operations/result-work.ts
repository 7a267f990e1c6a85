import type { TaskLog, TaskRecord, TaskResult } from '@baton/protocol';

import type { TaskAccess } from '../auth/task-access.js';
import { ControlFlowError } from '../control-flow-error.js';
import { copyWith } from '../copy-with.js';
import { afterCommit, type AfterCommit, type DecisionApplier } from '../decisions/decision-applier.js';
import type { EngineEvent, ResultEvent } from '../engine/index.js';
import type { HandOffWish } from '../handout/direct-hand-off.js';
import { newHandOutSeen, type HandOutSeen } from '../handout/hand-out-seen.js';
import type { PollRequest } from '../handout/poll-request.js';
import { pollQueues } from '../handout/poll-queues.js';
import type { Joinable, TransactionOptions, Tx } from '../store/store.js';
import type { Judged } from './result-refusals.js';

/** What a result's transaction answers: its task, whether it was applied (the verdict of one not applied), update-v2's next task. */
export type ResultAnswer = Judged & { next?: TaskRecord };

/** Results that cannot be joined after all (one task twice): each runs by itself. */
export class NotJoinable extends ControlFlowError {
  constructor() {
    super('these results cannot be decided together');
  }
}

/**
 * A worker's result in its transaction (`TaskService.update`, `updateAndPoll`): what it asks, and
 * what the transaction leaves for after its commit. Results that name one run and reach one
 * group-commit batch are joined (`Joinable`, keyed by the run): the branches of a fork ending at
 * once take the run's lock once and are decided as one, where each alone would leave the batch
 * for the run another one holds and wait a batch in turn.
 */
export class ResultWork implements Joinable {
  readonly key: string;
  readonly after: AfterCommit;
  /** update-v2: the poll its worker's next task is handed out under, set in the transaction. */
  poll: { request: PollRequest; queues: string[]; seen: HandOutSeen } | undefined;
  private wished: { request: PollRequest; queues: string[] } | undefined;

  constructor(
    readonly result: TaskResult,
    readonly access: TaskAccess,
    /** An IN_PROGRESS result takes the task off its queue (asyncComplete; `update`'s `detach`). */
    readonly detach: boolean,
    /**
     * update-v2: the poller's id when the result names none and the task has none (the caller's
     * address). Undefined: no next task is asked for (`update`).
     */
    private readonly fallbackWorkerId: string | undefined,
    private readonly together: (
      tx: Tx,
      works: readonly ResultWork[],
    ) => Promise<Array<PromiseSettledResult<ResultAnswer>>>,
    after: AfterCommit = afterCommit(),
  ) {
    this.key = `run:${result.workflowInstanceId ?? ''}`;
    this.after = after;
  }

  /** Its transaction's options: grouped, and joinable when the result names its run. */
  get options(): TransactionOptions {
    return this.result.workflowInstanceId ? { group: true, join: this } : { group: true };
  }

  /** Whether it asks for its worker's next task: update-v2's, with a result that ends the task. */
  get asksNext(): boolean {
    return this.fallbackWorkerId !== undefined && this.result.status !== 'IN_PROGRESS';
  }

  /** Its worker's wish for a task its decision queues (direct hand-off), for the task it ends. */
  wishFor(task: TaskRecord): HandOffWish {
    const request: PollRequest = {
      taskType: task.taskDefName,
      workerId: this.result.workerId ?? task.workerId ?? this.fallbackWorkerId ?? '',
      count: 1,
      timeoutMs: 0,
      ...(task.domain !== undefined && { domain: task.domain }),
    };
    const queues = pollQueues(request.taskType, request.domain);
    this.wished = { request, queues };
    return { queueNames: queues, workerId: request.workerId };
  }

  /** The poll its next task is handed out under (after `wishFor`). */
  startPoll(now: number): { request: PollRequest; queues: string[]; seen: HandOutSeen } {
    if (!this.wished) throw new Error('a poll started without its wish');
    this.poll = copyWith(this.wished, { seen: newHandOutSeen(now) });
    return this.poll;
  }

  async joint(tx: Tx, all: readonly Joinable[]): Promise<ReadonlyArray<PromiseSettledResult<unknown>>> {
    const works = all.filter((j): j is ResultWork => j instanceof ResultWork);
    if (works.length !== all.length) throw new NotJoinable();
    return this.together(tx, works);
  }
}

/**
 * Applies judged results of one run: one alone as a TASK_RESULT, several as one TASK_RESULTS
 * decision (each applied and the run moved on in turn, written once). Answers each one's task
 * and whether it was applied, by its place.
 */
export async function applyResults(
  tx: Tx,
  executor: DecisionApplier,
  now: number,
  toApply: ReadonlyArray<{ at: number; task: TaskRecord; work: ResultWork; wish?: HandOffWish }>,
): Promise<Map<number, { task: TaskRecord; applied: boolean }>> {
  const out = new Map<number, { task: TaskRecord; applied: boolean }>();
  const [one, ...more] = toApply;
  if (!one) return out;
  const logsOf = (task: TaskRecord, result: TaskResult): TaskLog[] =>
    (result.logs ?? []).map((l) => ({
      taskId: task.taskId,
      log: l.log,
      createdTime: l.createdTime ?? now,
    }));
  const resultOf = (task: TaskRecord, work: ResultWork): ResultEvent => ({
    result: copyWith(work.result, { workflowInstanceId: task.workflowInstanceId }),
    ...(work.detach && { detach: true }),
  });
  const event: EngineEvent =
    more.length === 0
      ? { type: 'TASK_RESULT', ...resultOf(one.task, one.work) }
      : { type: 'TASK_RESULTS', results: toApply.map((a) => resultOf(a.task, a.work)) };
  const decision = await executor.handle(
    tx,
    one.task.workflowInstanceId,
    event,
    one.work.after,
    toApply.flatMap((a) => logsOf(a.task, a.work.result)),
    toApply.flatMap((a) => (a.wish ? [a.wish] : [])),
  );
  for (const { at, task } of toApply) {
    const applied =
      decision !== undefined && !decision.ignored && !(decision.ignoredResults ?? []).includes(task.taskId);
    const updated = applied ? decision.updatedTasks.find((t) => t.taskId === task.taskId) : undefined;
    out.set(at, { task: updated ?? task, applied });
  }
  return out;
}
