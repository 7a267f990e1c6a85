import { performance } from 'node:perf_hooks';

import type { Logger } from 'pino';

import {
  isTerminalTaskStatus,
  type JsonObject,
  type PollData,
  type QueueCounts,
  type TaskLog,
  type TaskRecord,
  type TaskResult,
} from '@baton/protocol';

import type { Clock } from '../clock.js';
import { copyWith } from '../copy-with.js';
import { judgeResult, type ResultVerdict } from '../engine/index.js';
import { fail } from '../errors.js';
import { newId } from '../ids.js';
import type { WakeBus } from '../queue/wake-bus.js';
import type { Store, Tx } from '../store/store.js';
import { storeFault } from '../store/store-faults.js';
import type { Metrics } from '../metrics.js';
import { ANY_TASK, type TaskAccess } from '../auth/task-access.js';
import { afterCommit, type DecisionApplier } from '../decisions/decision-applier.js';
import { renewAttempt, settledWith } from '../decisions/after-commit.js';
import { holdBackOverLimit } from '../handout/hand-out-limits.js';
import { handedOut, type HandOffWish } from '../handout/direct-hand-off.js';
import type { PollRecorder } from '../handout/poll-recorder.js';
import { explainTasks } from '../views/waiting.js';
import { isActivePoll, queueLiveness, type WorkerLiveness } from '../handout/worker-liveness.js';
import { dropPollTimers, lockLapsingAttempts } from '../handout/hand-out-timers.js';
import { pollQueues } from '../handout/poll-queues.js';
import { ParkedPolls } from '../handout/parked-polls.js';
import { newHandOutSeen, type HandOutSeen } from '../handout/hand-out-seen.js';
import { resultByRefIn } from './task-by-ref.js';
import { checkResultRun, refuseIfStale } from './result-refusals.js';
import { applyResults, NotJoinable, type ResultAnswer, ResultWork } from './result-work.js';
import type { PollRequest } from '../handout/poll-request.js';

export type { PollRequest } from '../handout/poll-request.js';

/**
 * A worker's result or poll: short, at most one run (and what its end touches), arriving
 * concurrently with many others, so its transaction may share a commit with theirs (Store
 * TransactionOptions.group).
 */
const GROUPED = { group: true } as const;

/** Optional observers of hand-outs and results: metrics, a logger, the worker liveness view, poll data. */
export interface HandOutObservers {
  metrics?: Metrics;
  /** Where refused results are logged. */
  logger?: Pick<Logger, 'warn'>;
  liveness?: WorkerLiveness;
  /** Buffers poll data; without it each poll is written inside its hand-out. */
  polls?: PollRecorder;
}

/** Hand-out, results and queue views for worker tasks. */
export class TaskService {
  /** Set when the server stops, so woken long polls answer at once instead of waiting again. */
  private closed = false;
  constructor(
    private readonly store: Store,
    private readonly executor: DecisionApplier,
    private readonly wake: WakeBus,
    private readonly clock: Clock,
    private readonly observers: HandOutObservers = {},
    /** The long polls waiting on this node, which results' transactions hand new tasks to. */
    readonly parkedPolls: ParkedPolls = new ParkedPolls(),
  ) {}

  /**
   * Takes up to `count` tasks, waiting up to `timeoutMs` for work to appear. The wait is woken
   * when work is queued (on this node directly, on others through the store's notifications)
   * or when a delayed message becomes visible; it never sleeps and re-polls blindly.
   */
  async poll(request: PollRequest): Promise<TaskRecord[]> {
    const queues = pollQueues(request.taskType, request.domain);
    const deadline = performance.now() + request.timeoutMs;
    for (let waited = false; ; waited = true) {
      const seen = this.wake.generation(queues);
      let handed: Awaited<ReturnType<TaskService['handOut']>>;
      try {
        // A poll that will not wait (timeout 0, or its time is up) has no use for the next due time.
        handed = await this.handOut(request, queues, deadline > performance.now() && !this.closed);
      } catch (err) {
        // A poll that has waited and then finds the database away ends early with nothing (the
        // worker polls again); one that meets it at once answers 503 (http/error-handler.ts).
        if (waited && storeFault(err) !== undefined) return [];
        throw err;
      }
      const { tasks, nextVisibleAt: next } = handed;
      if (request.signal?.aborted) {
        // The caller left while we claimed: give the work straight back rather than leaving
        // it locked for a whole response timeout.
        await this.release(tasks);
        return [];
      }
      const remaining = deadline - performance.now();
      if (tasks.length > 0 || remaining <= 0 || this.closed) return tasks;
      const now = this.clock.now();
      const untilVisible = next === undefined ? remaining : Math.max(0, next - now);
      const delivered = await this.parkedWait(request, queues, Math.min(remaining, untilVisible), seen);
      if (delivered.length > 0) {
        if (request.signal?.aborted) {
          await this.release(delivered);
          return [];
        }
        return [...delivered];
      }
      if (request.signal?.aborted || this.closed) return [];
    }
  }

  /**
   * A long poll's wait, parked (handout/parked-polls.ts), and what transactions handed it while
   * it waited (counted as hand-outs, schedule-to-start being the transaction's own time).
   */
  private async parkedWait(
    request: PollRequest,
    queues: readonly string[],
    ms: number,
    seen: number,
  ): Promise<readonly TaskRecord[]> {
    const tasks = await this.parkedPolls.wait(this.wake, queues, request, ms, seen);
    if (tasks.length === 0) return tasks;
    const at = this.clock.now();
    this.observers.liveness?.polled(queues[1] ?? request.taskType, at);
    for (const task of tasks) {
      this.observers.metrics?.taskHandedOut(task.taskDefName, at - task.scheduledTime);
      this.observers.metrics?.taskHandedToWaitingPoll(task.taskDefName);
    }
    return tasks;
  }

  /** Stored poll data with this node's polls not yet written laid over it. */
  readonly withPending = (stored: readonly PollData[], taskType?: string): PollData[] =>
    this.observers.polls ? this.observers.polls.merge(stored, taskType) : [...stored];

  /** Ends every waiting long poll now (with whatever it has: nothing) and refuses to wait again. */
  close(): void {
    this.closed = true;
    this.wake.wakeAll();
  }

  /**
   * An idle poller's look before it claims: its polls are recorded as claims would record them,
   * and the answer is when the first message of their queues that nobody holds is (or was)
   * visible, undefined when there is none. A claim finds work exactly when this is due. One read
   * where claiming is a transaction per task type: an idle node's system-task executor looks once
   * a second and claims only when a message is due or a wake-up says one was queued.
   */
  async nextDue(requests: readonly PollRequest[]): Promise<number | undefined> {
    const queues = requests.map((r) => pollQueues(r.taskType, r.domain));
    const look = async (tx: Tx): Promise<number | undefined> => {
      const now = this.clock.now();
      for (const [i, r] of requests.entries()) await this.recordPoll(tx, r, queues[i] ?? [], now);
      return tx.nextVisibleAt(queues.flat(), now);
    };
    // Without a poll recorder a poll is a write: then the look is a transaction of its own.
    const due = this.observers.polls ? await this.store.read(look) : await this.store.transaction(look);
    const at = this.clock.now();
    for (const [i, r] of requests.entries())
      this.observers.liveness?.polled(queues[i]?.[1] ?? r.taskType, at);
    return due;
  }

  /**
   * One claim: messages locked, tasks IN_PROGRESS, poll recorded, all in one transaction. When
   * nothing was claimed it also answers when the next delayed message comes due, in the same
   * transaction, so a poll that goes on to wait needs no transaction of its own to learn how long.
   */
  private async handOut(
    request: PollRequest,
    queues: string[],
    willWait: boolean,
  ): Promise<{ tasks: TaskRecord[]; nextVisibleAt?: number | undefined }> {
    const seen = newHandOutSeen(this.clock.now());
    const out = await this.store.transaction(async (tx) => {
      const tasks = await this.handOutIn(tx, request, queues, seen);
      // Read here, not in handOutIn: update-v2, and a poll that answers at once, would pay a
      // statement (on PostgreSQL a round trip) for a figure only a waiting poll uses.
      return willWait && tasks.length === 0 && request.count > 0
        ? { tasks, nextVisibleAt: await tx.nextVisibleAt(queues, this.clock.now()) }
        : { tasks };
    }, GROUPED);
    this.observeHandOut(queues[1] ?? request.taskType, seen, out.tasks);
    if (seen.deferredQueues.size > 0) this.wake.wake([...seen.deferredQueues]);
    return out;
  }

  /** The hand-out inside the caller's transaction; `seen` collects what is observed after commit. */
  private async handOutIn(
    tx: Tx,
    request: PollRequest,
    queues: string[],
    seen: HandOutSeen,
  ): Promise<TaskRecord[]> {
    {
      const { firstStarts, deferredBy, deferredQueues } = seen;
      firstStarts.clear();
      deferredBy.length = 0;
      deferredQueues.clear();
      const now = this.clock.now();
      await this.recordPoll(tx, request, queues, now);
      if (request.count <= 0) return [];
      const claimed = await tx.claim({
        queueNames: queues,
        count: request.count,
        workerId: request.workerId,
        now,
        lockToken: newId(),
      });
      if (claimed.length === 0) return [];
      const tasks = await tx.getTasks(claimed.map((m) => m.taskId));
      const byId = new Map(tasks.map((t) => [t.taskId, t]));
      const handed: TaskRecord[] = [];
      const stale: string[] = [];
      const lapsed: TaskRecord[] = [];
      for (const message of claimed) {
        const task = byId.get(message.taskId);
        // A message whose task has ended (or vanished) is stale: drop it, never hand it out.
        if (!task || isTerminalTaskStatus(task.status)) {
          stale.push(message.taskId);
          continue;
        }
        // Handed out already (claimed unlocked): its response timeout makes the next attempt.
        if (task.status === 'IN_PROGRESS') {
          lapsed.push(task);
          continue;
        }
        handed.push(handedOut(task, request.workerId, now));
      }
      // concurrentExecLimit and rate limits (docs/design/task-lifecycle.md#limits): tasks over them
      // are put back for 60 s.
      const defs =
        handed.length > 0 ? await tx.getTaskDefs([...new Set(handed.map((t) => t.taskDefName))]) : new Map();
      const heldBack = await holdBackOverLimit(
        tx,
        handed.map((t) => byId.get(t.taskId) ?? t),
        defs,
        now,
      );
      for (const [id, reason] of heldBack) {
        handed.splice(
          handed.findIndex((t) => t.taskId === id),
          1,
        );
        deferredBy.push({ type: byId.get(id)?.taskDefName ?? request.taskType, reason });
        const queueName = byId.get(id)?.queueName;
        if (queueName !== undefined) deferredQueues.add(queueName);
      }
      // Delayed, not gone: polls waiting on these queues re-read when the next message is due.
      if (deferredQueues.size > 0) await tx.notifyQueues([...deferredQueues]);
      // Compare-and-set: a task that a concurrent decide has just ended is not reopened; its
      // message is dropped instead (that decide removes it too, whichever commits first).
      const written = new Set(await tx.updateOpenTasks(handed));
      for (const task of handed) if (!written.has(task.taskId)) stale.push(task.taskId);
      if (stale.length > 0) await tx.removeMessages(stale);
      const taken = handed.filter((t) => written.has(t.taskId));
      for (const t of taken)
        if (byId.get(t.taskId)?.startTime === 0) firstStarts.set(t.taskId, now - t.scheduledTime);
      const messages = new Map(claimed.map((m) => [m.taskId, m]));
      const armedAt = [
        await dropPollTimers(tx, taken, messages, defs, now),
        await lockLapsingAttempts(tx, lapsed, now),
      ].filter((t): t is number => t !== undefined);
      if (armedAt.length > 0) this.executor.timerArmed(Math.min(...armedAt));
      return taken;
    }
  }

  private async recordPoll(
    tx: Tx,
    request: PollRequest,
    queues: readonly string[],
    now: number,
  ): Promise<void> {
    const poll = {
      queueName: queues[1] ?? request.taskType,
      taskType: request.taskType,
      workerId: request.workerId,
      now,
      ...(request.domain !== undefined && { domain: request.domain }),
    };
    if (this.observers.polls) this.observers.polls.record(poll);
    else await tx.recordPolls([poll]);
  }

  /** After the hand-out committed: liveness view and metrics. */
  private observeHandOut(pollQueue: string, seen: HandOutSeen, tasks: readonly TaskRecord[]): void {
    this.observers.liveness?.polled(pollQueue, seen.polledAt);
    const metrics = this.observers.metrics;
    if (!metrics) return;
    for (const task of tasks) metrics.taskHandedOut(task.taskDefName, seen.firstStarts.get(task.taskId));
    for (const d of seen.deferredBy) metrics.taskDeferred(d.type, d.reason);
  }

  /**
   * Puts handed-out tasks back on their queues at once (their worker never received them, or
   * gave them up unfinished: a stopping node's system calls), as the same attempt.
   */
  async release(tasks: readonly TaskRecord[]): Promise<void> {
    if (tasks.length === 0) return;
    const wake = new Set<string>();
    await this.store.transaction(async (tx) => {
      const now = this.clock.now();
      const current = await tx.getTasks(tasks.map((t) => t.taskId));
      const back = current
        .filter((t) => t.status === 'IN_PROGRESS')
        .map((t) => copyWith(t, { status: 'SCHEDULED' as const, updateTime: now }));
      const written = new Set(await tx.updateOpenTasks(back));
      for (const task of back.filter((t) => written.has(t.taskId))) {
        await tx.requeueMessage(task.taskId, now);
        if (task.queueName) wake.add(task.queueName);
      }
      await tx.notifyQueues([...wake]);
    });
    this.wake.wake([...wake]);
  }

  /**
   * Applies a worker's result. A result for an attempt that has ended, or from a worker that
   * does not hold the task, is refused with 409 and changes nothing; an exact repeat of the
   * recorded result is acknowledged again (`engine/result-acceptance.ts`).
   */
  async update(
    result: TaskResult,
    options: {
      /** `detach`: an IN_PROGRESS result takes the task off its queue to be completed from outside (asyncComplete). */
      detach?: boolean;
      /** Checked on the task found, before anything changes. */
      access?: TaskAccess;
      /**
       * The caller asked for strict handling (`Prefer: handling=strict`): a lapsed result is
       * refused with 409 like any other stale one instead of Conductor's silent 2xx.
       */
      strict?: boolean;
    } = {},
  ): Promise<{ task: TaskRecord; applied: boolean; lapsed: boolean }> {
    const { access = ANY_TASK, detach = false, strict = false } = options;
    const out = await this.settledResult(new ResultWork(result, access, detach, undefined, this.together));
    refuseIfStale(out, result.workerId, this.observers, strict);
    // Past refuseIfStale only a lapsed refusal is left: answered 2xx, yet not recorded.
    return { task: out.task, applied: out.applied, lapsed: out.verdict?.kind === 'refuse' };
  }

  /**
   * update-v2: applies a worker's result and, in the same transaction, hands that worker the
   * next task of the same type (one commit per step instead of two). A result that leaves the
   * task IN_PROGRESS answers no task, as does a caller that has gone away (its task is put back).
   */
  async updateAndPoll(
    result: TaskResult,
    /** The poller's id when the result names none and the task has none (the caller's address). */
    fallbackWorkerId: string,
    /** Whether the caller has gone away (asked once the transaction is done). */
    hungUp: () => boolean = () => false,
    access: TaskAccess = ANY_TASK,
  ): Promise<{ task: TaskRecord; applied: boolean; next?: TaskRecord }> {
    const work = new ResultWork(result, access, false, fallbackWorkerId, this.together);
    const out = await this.settledResult(work);
    refuseIfStale(out, result.workerId, this.observers);
    const poll = work.poll;
    if (poll)
      this.observeHandOut(poll.queues[1] ?? poll.request.taskType, poll.seen, out.next ? [out.next] : []);
    if (out.next && hungUp()) {
      await this.release([out.next]);
      const { next: _dropped, ...rest } = out;
      return rest;
    }
    return out;
  }

  /** Joined results' transaction (`ResultWork.joint`). */
  private readonly together = (
    tx: Tx,
    works: readonly ResultWork[],
  ): Promise<Array<PromiseSettledResult<ResultAnswer>>> => this.resultsIn(tx, works);

  /** One result's transaction: `resultsIn` for it alone, its failure thrown. */
  private async oneResultIn(tx: Tx, work: ResultWork): Promise<ResultAnswer> {
    const [outcome] = await this.resultsIn(tx, [work]);
    if (!outcome) throw new Error('a result was answered nothing');
    if (outcome.status === 'rejected') throw outcome.reason;
    return outcome.value;
  }

  /**
   * Results in one transaction: each checked and judged on its own (a missing task, a refused or
   * mismatched result answers for itself), those to apply decided as one (several results name
   * one run: see `ResultWork`), then each update-v2 worker handed its next task in order. With
   * one result, exactly the single result's path: its lock and task read, a TASK_RESULT.
   */
  private async resultsIn(
    tx: Tx,
    works: readonly ResultWork[],
  ): Promise<Array<PromiseSettledResult<ResultAnswer>>> {
    const [first] = works;
    if (!first) return [];
    // A transaction run again starts over: its last attempt's hand-offs to waiting polls too.
    // (Every work here is `update`'s or `updateAndPoll`'s, which settle them after the commit.)
    for (const work of works) {
      work.poll = undefined;
      renewAttempt(work.after, this.parkedPolls.attempt);
    }
    // A result that names its run (as workers' results do) locks that run in the same round trip
    // as its task read, the lock its decision takes next; a wrong run is refused after
    // (checkResultRun), and a lone transaction rolls back.
    const runId = first.result.workflowInstanceId;
    let found: Array<TaskRecord | undefined>;
    if (works.length === 1) {
      found = [
        runId
          ? await tx.getTaskLockingRun(first.result.taskId, runId)
          : await tx.getTask(first.result.taskId),
      ];
    } else {
      const ids = works.map((w) => w.result.taskId);
      // Joined: every one names `runId` (the key). A task named twice (a result posted again
      // while the first is under way) must be judged against the first one's outcome: in turn.
      if (runId === undefined || new Set(ids).size < ids.length) throw new NotJoinable();
      found = await tx.getTasksLockingRun(ids, runId);
    }
    const outcomes: Array<PromiseSettledResult<ResultAnswer> | undefined> = [];
    const judged: Array<{
      at: number;
      work: ResultWork;
      task: TaskRecord;
      verdict: ResultVerdict;
      wish?: HandOffWish;
    }> = [];
    works.forEach((work, at) => {
      try {
        const task = found[at];
        if (!task) throw fail('TASK_NOT_FOUND', { taskId: work.result.taskId });
        work.access.check(task);
        checkResultRun(task, work.result);
        const verdict = judgeResult(task, work.result);
        if (verdict.kind === 'refuse' || (verdict.kind === 'repeat' && !work.asksNext)) {
          outcomes[at] = { status: 'fulfilled', value: { task, applied: false, verdict } };
          return;
        }
        judged.push({ at, work, task, verdict, ...(work.asksNext && { wish: work.wishFor(task) }) });
      } catch (err) {
        outcomes[at] = { status: 'rejected', reason: err };
      }
    });
    const applied = await applyResults(
      tx,
      this.executor,
      this.clock.now(),
      judged.filter((j) => j.verdict.kind === 'apply'),
    );
    for (const { at, work, task, wish } of judged) {
      const answer: ResultAnswer = applied.get(at) ?? { task, applied: false };
      if (!wish) {
        outcomes[at] = { status: 'fulfilled', value: answer };
        continue;
      }
      const poll = work.startPoll(this.clock.now());
      if (wish.handed) {
        // Recorded as a poll that took the task at once (schedule-to-start 0).
        await this.recordPoll(tx, poll.request, poll.queues, poll.seen.polledAt);
        poll.seen.firstStarts.set(wish.handed.task.taskId, 0);
        outcomes[at] = { status: 'fulfilled', value: copyWith(answer, { next: wish.handed.task }) };
        continue;
      }
      const next = (await this.handOutIn(tx, poll.request, poll.queues, poll.seen))[0];
      outcomes[at] = { status: 'fulfilled', value: next === undefined ? answer : copyWith(answer, { next }) };
    }
    return works.map(
      (_, at) => outcomes[at] ?? { status: 'rejected', reason: new Error('a result was answered nothing') },
    );
  }

  /**
   * Completes (or fails) the open task with this reference name from outside, as HUMAN and
   * WAIT tasks are. The body is merged into the task's output. Answers the task id, or
   * undefined when the run has no open task by that name.
   */
  async updateByRef(
    workflowId: string,
    ref: string,
    status: TaskResult['status'],
    output: JsonObject,
    workerId?: string,
    access: TaskAccess = ANY_TASK,
  ): Promise<string | undefined> {
    const after = afterCommit();
    const posted = { workflowId, ref, status, output, workerId, access };
    const transaction = this.store.transaction((tx) => {
      renewAttempt(after, this.parkedPolls.attempt);
      return resultByRefIn(tx, posted, (result, task) => {
        const work = new ResultWork(result, access, false, undefined, this.together, after);
        return applyResults(tx, this.executor, this.clock.now(), [{ at: 0, task, work }]);
      });
    });
    const { taskId, refused } = await settledWith(after, transaction);
    this.executor.afterCommitted(after, this.wake);
    if (refused) refuseIfStale(refused, workerId, this.observers);
    return taskId;
  }

  /** One result's transaction, done: what it asked for once committed is done too. */
  private async settledResult(work: ResultWork): Promise<ResultAnswer> {
    const transaction = this.store.transaction((tx) => this.oneResultIn(tx, work), work.options);
    const out = await settledWith(work.after, transaction);
    this.executor.afterCommitted(work.after, this.wake);
    return out;
  }

  /** A task, with why it waits when it is open (computed now, not stored). */
  async getTask(taskId: string, access: TaskAccess = ANY_TASK): Promise<TaskRecord> {
    return this.store.read(async (tx) => {
      const task = await this.requireTask(tx, taskId);
      access.check(task);
      const why = (await explainTasks(tx, [task], this.clock.now(), this.withPending)).get(taskId);
      return why ? copyWith(task, { waitingFor: why }) : task;
    });
  }

  /** The task, or 404. */
  private async requireTask(tx: Tx, taskId: string): Promise<TaskRecord> {
    const task = await tx.getTask(taskId);
    if (!task) throw fail('TASK_NOT_FOUND', { taskId });
    return task;
  }

  async appendLog(taskId: string, log: string, access: TaskAccess = ANY_TASK): Promise<void> {
    await this.store.transaction(async (tx) => {
      access.check(await this.requireTask(tx, taskId));
      await tx.appendTaskLogs([{ taskId, log, createdTime: this.clock.now() }]);
    });
  }

  async logs(taskId: string, access: TaskAccess = ANY_TASK): Promise<TaskLog[]> {
    return this.store.read(async (tx) => {
      access.check(await this.requireTask(tx, taskId));
      return tx.getTaskLogs(taskId);
    });
  }

  /** Counts per queue, with its liveness: active workers (polled in the last 10 s), last poll. */
  async queueCounts(): Promise<QueueCounts[]> {
    const now = this.clock.now();
    const { counts, polls } = await this.store.read(async (tx) => ({
      counts: await tx.queueCounts(now),
      polls: this.withPending(await tx.pollData()),
    }));
    return counts.map((q) => copyWith(q, queueLiveness(q.queueName, polls, now)));
  }

  /**
   * Conductor's queue sizes: for each named type, the tasks waiting in the queue its workers of
   * the default domain poll (`{type}`, and its `{type}-high`); 0 for a type with no queue.
   */
  async waitingByType(taskTypes: readonly string[]): Promise<Record<string, number>> {
    const now = this.clock.now();
    const waiting = new Map(
      (await this.store.read((tx) => tx.queueCounts(now))).map((q) => [q.queueName, q.waiting]),
    );
    const out: Record<string, number> = {};
    for (const type of taskTypes) out[type] = (waiting.get(type) ?? 0) + (waiting.get(`${type}-high`) ?? 0);
    return out;
  }

  /** Last poll per worker, each marked active when it polled in the last 10 s. */
  async pollData(taskType?: string): Promise<PollData[]> {
    const now = this.clock.now();
    const polls = this.withPending(await this.store.read((tx) => tx.pollData(taskType)), taskType);
    return polls.map((p) => copyWith(p, { active: isActivePoll(p.lastPollTime, now) }));
  }
}
