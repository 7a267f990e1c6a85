import type { RunRecord } from '@baton/protocol';

/**
 * Where a worker task queued by a decision at `now` stands in its queue: its `visibleAt`, which
 * both gates the hand-out (a message is handed out once `visibleAt <= now`) and orders it (the
 * claim takes priority first, then the lowest `visibleAt`).
 *
 * A task with a delay (a retry's back-off, a start delay) becomes visible when the delay ends and
 * is ordered from then. A task queued at once is ordered as if it had been queued `runAgeMs`
 * earlier, but never before its run began (`runBegan`: a SUB_WORKFLOW child's is the run's that
 * started it, `RunRecord.queueSince`): so a run under way goes ahead of runs that began after it.
 * Without that, under a backlog of new runs a fork's branches and every task the engine queues
 * after a step that could not be handed straight to its worker wait behind the first tasks of
 * every run started meanwhile (`npm run bench -- --shape branching`: hand-offs of 5 to 7 s at the
 * p99 under load against 0.2 to 0.9 s, at the same throughput; docs/PERFORMANCE.md, "Built: runs
 * under way go first in their queues"). The bound keeps it fair: a task never waits behind one
 * queued more than `runAgeMs` after it. With 0, tasks go strictly in the order queued, as in
 * Conductor's queues.
 */
export function queuedAt(now: number, runBegan: number, delayMs: number, runAgeMs = 0): number {
  if (delayMs > 0) return now + delayMs;
  // min: a run stamped ahead of this node's clock (another node's) still queues visible now.
  return Math.min(now, Math.max(runBegan, now - runAgeMs));
}

/**
 * When `run`'s work began, for the queue order: a SUB_WORKFLOW child's is the run's that started
 * it (`RunRecord.queueSince`, carried down every level), any other run's its own start.
 */
export function runQueueSince(run: Pick<RunRecord, 'queueSince' | 'createTime'>): number {
  return run.queueSince ?? run.createTime;
}
