import type { RunRecord, RunTrace, TaskRecord } from '@baton/protocol';

import type { Decision, EngineAlert, EngineEvent } from '../engine/index.js';
import type { Tx } from '../store/store.js';
import type { AfterCommit } from './after-commit.js';

/*
 * What the decision applier tells the rest of the node, and what it is given to do so: the
 * composition root (server.ts) wires these; the applier only calls them.
 */

/** What a run's trace context is made from: its name, and the run and task that started it. */
export type TracedRun = Pick<RunRecord, 'workflowName' | 'parentWorkflowId' | 'parentWorkflowTaskId'> & {
  /** The trace of the run whose task `parentWorkflowTaskId` starts this one, when at hand. */
  parentTrace?: RunTrace | undefined;
};

/** Outside effects of the executor, set by the composition root. */
export interface DecisionApplierHooks {
  /** A timeout under ALERT_ONLY was recorded (called after commit): a metric and a warning. */
  onAlert?: (alert: EngineAlert) => void;
  /**
   * A timer due at `dueAt` was armed in the current transaction: a hint for this node's timer
   * loop to wake in time (sent before commit, so the loop re-checks rather than trusts it).
   */
  onTimerArmed?: (dueAt: number) => void;
  /**
   * Told of every decision inside its transaction, after it is written (lifecycle events go to
   * the outbox here, so they exist if and only if the change commits). `before` is undefined
   * for a run being started.
   */
  onDecided?: (
    tx: Tx,
    before: RunRecord | undefined,
    beforeTasks: readonly TaskRecord[],
    decision: Decision,
    after: AfterCommit,
  ) => Promise<void>;
  /**
   * A decision threw and its run was failed with the error instead (`decide-or-fault.ts`): the
   * error with its stack, for the log and a metric. Called by `DecisionApplier.afterCommitted`
   * once the transaction has committed, once a fault.
   */
  onFault?: (workflowId: string, event: EngineEvent['type'], error: unknown) => void;
  /** Tracing (`src/tracing/run-tracer.ts`): a new run's trace context, and each new task's. */
  tracer?: {
    traceRun(tx: Tx | undefined, run: TracedRun): Promise<RunTrace>;
    stampTasks(run: RunRecord, tasks: readonly TaskRecord[]): void;
    signalled(run: RunRecord, status: string, now: number): void;
    within<T>(name: string, attributes: Record<string, string | number>, work: () => Promise<T>): Promise<T>;
  };
}

/**
 * Told of every decision the executor applies, inside its transaction (metrics, liveness
 * warnings). `before` is the run as it was (undefined for a run being started).
 */
export interface ExecutionObserver {
  decided(
    before: RunRecord | undefined,
    beforeTasks: readonly TaskRecord[],
    decision: Decision,
    now: number,
  ): void;
}
