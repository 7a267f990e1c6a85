import type { TaskRecord } from '@baton/protocol';

import type { PollRequest } from './poll-request.js';

/** What a parked poll waits on: the node's wake-ups of queues (queue/wake-bus.ts). */
export interface QueueWakeUps {
  wait(
    queueNames: readonly string[],
    ms: number,
    signal?: AbortSignal,
    seenGeneration?: number,
  ): Promise<void>;
}

/**
 * How long a poll whose wait has ended waits for the transactions that reserved a place in it to
 * settle. They do when they commit or fail, in milliseconds or a slow second; were one never to,
 * the poll answers what it has rather than hang, and a task committed for it after that waits out
 * its response timeout like any answer that was lost.
 */
const SETTLE_BOUND_MS = 30_000;

/**
 * The long polls waiting on this node for work, so that a transaction which queues a task one of
 * them would claim can hand it over itself (`handOffToParked`, direct-hand-off.ts): the task is
 * written IN_PROGRESS for that poll's worker in the transaction that creates it, and the poll
 * answers it once that transaction has committed. Without this the commit only wakes the poll,
 * which then needs a claim transaction of its own (on PostgreSQL a place in the next group-commit
 * batch) before it can answer: one more commit a task, and a batch's wait on the hand-off, for
 * every task a worker takes from a poll (the legacy path's every step, a fork's branches, a run's
 * first task).
 *
 * A poll is parked only while it waits, after a claim of its own found nothing, so nothing older
 * it could have taken was visible to it then. A transaction reserves a place in a parked poll
 * (`HandOffAttempt.offer`) and either delivers it after its commit or releases it when it rolls
 * back or runs again; a poll that stops waiting takes no new reservations, and answers only once
 * every reservation already made in it is settled, so a task its transaction committed for it is
 * never dropped. Were the answer lost on the way (the caller gone), the poll puts the tasks back
 * on their queues, as a claim's would be.
 */
export class ParkedPolls {
  /** In the order they parked: the one waiting longest is offered work first. */
  private readonly parked: ParkedPoll[] = [];

  /** Parks a poll of `queues` for up to `count` tasks for `workerId` (until `unpark`). */
  park(queues: readonly string[], count: number, workerId: string): ParkedPoll {
    const poll = new ParkedPoll(queues, count, workerId);
    this.parked.push(poll);
    return poll;
  }

  /**
   * A long poll's wait, parked: it ends when its queues are woken (`wake`, `seen` as read before
   * its claim), after `ms`, when its caller leaves (`request.signal`), or when a transaction
   * delivers it a task. Answers what was delivered, once every reservation made in it has settled.
   */
  async wait(
    wake: QueueWakeUps,
    queues: readonly string[],
    request: Pick<PollRequest, 'count' | 'workerId' | 'signal'>,
    ms: number,
    seen: number,
  ): Promise<readonly TaskRecord[]> {
    const poll = this.park(queues, request.count, request.workerId);
    try {
      const signal = request.signal ? AbortSignal.any([request.signal, poll.arrived]) : poll.arrived;
      await wake.wait(queues, ms, signal, seen);
    } finally {
      this.unpark(poll);
    }
    let bound: NodeJS.Timeout | undefined;
    await Promise.race([
      poll.settled(),
      new Promise<void>((resolve) => (bound = setTimeout(resolve, SETTLE_BOUND_MS))),
    ]);
    clearTimeout(bound);
    return poll.tasks;
  }

  /** Takes the poll out of the offers (reservations already made still settle). */
  unpark(poll: ParkedPoll): void {
    poll.close();
    const at = this.parked.indexOf(poll);
    if (at >= 0) this.parked.splice(at, 1);
  }

  /** One transaction attempt's reservations, settled with it (bound, so it can be passed on). */
  readonly attempt = (): HandOffAttempt => new HandOffAttempt(this);

  /** The first parked poll of `queueName` with room for one more task, reserved; undefined when none. */
  reserve(queueName: string): ParkedPoll | undefined {
    for (const poll of this.parked) if (poll.reserve(queueName)) return poll;
    return undefined;
  }

  /** How many polls are parked (for tests and metrics). */
  get size(): number {
    return this.parked.length;
  }
}

/** One waiting long poll: its queues, its room, and what transactions have handed it. */
export class ParkedPoll {
  private open = true;
  private reserved = 0;
  private readonly handed: TaskRecord[] = [];
  private readonly stop = new AbortController();
  private onSettled: (() => void) | undefined;

  constructor(
    readonly queues: readonly string[],
    private readonly count: number,
    readonly workerId: string,
  ) {}

  /** Aborts when a task has been delivered: the poll stops waiting. */
  get arrived(): AbortSignal {
    return this.stop.signal;
  }

  /** The tasks delivered to it, in order. */
  get tasks(): readonly TaskRecord[] {
    return this.handed;
  }

  /** Resolves once no reservation in it is outstanding (at once when none is). */
  settled(): Promise<void> {
    if (this.reserved === 0) return Promise.resolve();
    return new Promise((resolve) => (this.onSettled = resolve));
  }

  reserve(queueName: string): boolean {
    if (!this.open || this.reserved + this.handed.length >= this.count) return false;
    if (!this.queues.includes(queueName)) return false;
    this.reserved++;
    return true;
  }

  close(): void {
    this.open = false;
  }

  deliver(task: TaskRecord): void {
    this.handed.push(task);
    // It answers what it has: no more offers, and its wait ends.
    this.open = false;
    this.settle();
    this.stop.abort();
  }

  release(): void {
    this.settle();
  }

  private settle(): void {
    this.reserved--;
    if (this.reserved === 0) {
      const settled = this.onSettled;
      this.onSettled = undefined;
      settled?.();
    }
  }
}

/**
 * The reservations one transaction attempt made. Made afresh for each attempt (an attempt that
 * runs again releases the last one's first), delivered once the transaction has committed, or
 * released when it failed: exactly one of the two, once.
 */
export class HandOffAttempt {
  private readonly made: Array<{ poll: ParkedPoll; task?: TaskRecord }> = [];
  private done = false;

  constructor(private readonly polls: ParkedPolls) {}

  /** A parked poll of `queueName` with room, reserved for this attempt; undefined when none. */
  offer(queueName: string): ParkedPoll | undefined {
    if (this.done) return undefined;
    const poll = this.polls.reserve(queueName);
    if (poll) this.made.push({ poll });
    return poll;
  }

  /** The task written for `poll` (after `offer` answered it). */
  handTo(poll: ParkedPoll, task: TaskRecord): void {
    const reservation = this.made.find((r) => r.poll === poll && r.task === undefined);
    if (!reservation) throw new Error('a task handed to a poll this attempt did not reserve');
    reservation.task = task;
  }

  /** Whether any poll waits that it could offer work to (a decision need not look otherwise). */
  get waiting(): boolean {
    return !this.done && this.polls.size > 0;
  }

  /** Its transaction committed: each poll gets its task (a reservation left unused is released). */
  deliver(): void {
    if (this.done) return;
    this.done = true;
    for (const { poll, task } of this.made.splice(0)) {
      if (task) poll.deliver(task);
      else poll.release();
    }
  }

  /** Its transaction rolled back, or runs again: every reservation is given back. */
  release(): void {
    if (this.done) return;
    this.done = true;
    for (const { poll } of this.made.splice(0)) poll.release();
  }
}
