import { performance } from 'node:perf_hooks';

import {
  isTerminalTaskStatus,
  isTerminalWorkflowStatus,
  type StartWorkflowRequest,
  type TaskRecord,
  type Workflow,
  type WorkflowStatus,
} from '@baton/protocol';

import { kindNameOf } from '../engine/index.js';
import { type Clock, systemClock } from '../clock.js';
import type { WakeBus } from '../queue/wake-bus.js';
import { runWakeName } from '../decisions/run-wake.js';
import type { WorkflowService } from './workflow-service.js';
import { copyWith } from '../copy-with.js';

export interface ExecuteOptions {
  /** How long to wait for the run to end or block, in seconds. */
  waitForSeconds: number;
  /** Answer as soon as one of these tasks has ended. */
  waitUntilTaskRef: string[];
  requestId?: string;
}

/** The run as it stands, in the shape of Conductor's `SignalResponse` (a `WorkflowRun`). */
export type ExecuteAnswer = Workflow & {
  responseType: 'TARGET_WORKFLOW';
  targetWorkflowId: string;
  targetWorkflowStatus: WorkflowStatus;
  requestId?: string;
  /** Set when the wait ran out before the run ended or blocked. */
  signalTimeout?: boolean;
};

/** How far the nodes' clocks may disagree before a waiter misses other nodes' wake-ups. */
const CLOCK_SKEW_MARGIN_MS = 60_000;

/**
 * Synchronous execution (Conductor's `POST /api/workflow/execute/{name}/{version}`): starts a
 * run and answers it once it ends, blocks on outside input (a WAIT without a timer, a HUMAN
 * task, a blocking PULL_WORKFLOW_MESSAGES) or reaches one of `waitUntilTaskRef`, or when the
 * wait runs out. The wait is woken by the commits that change the run (`run-wake.ts`), not by
 * re-reading on an interval.
 */
export class SyncExecuteService {
  constructor(
    private readonly workflows: WorkflowService,
    private readonly wake: WakeBus,
    private readonly clock: Clock = systemClock,
  ) {}

  async execute(request: StartWorkflowRequest, options: ExecuteOptions): Promise<ExecuteAnswer> {
    const waitMs = options.waitForSeconds * 1000;
    // Other nodes announce the run's changes until then, read on their own clocks: a margin
    // absorbs their skew (a wake-up too many costs nothing; one missed, the rest of the wait).
    const syncWaitUntil = this.clock.now() + waitMs + CLOCK_SKEW_MARGIN_MS;
    const workflowId = await this.workflows.start(request, { syncWaitUntil });
    const names = [runWakeName(workflowId)];
    const deadline = performance.now() + waitMs;
    for (;;) {
      const seen = this.wake.generation(names);
      const run = await this.workflows.get(workflowId);
      if (isSettled(run, options.waitUntilTaskRef)) return answer(run, options, false);
      const remaining = deadline - performance.now();
      if (remaining <= 0) return answer(run, options, true);
      await this.wake.wait(names, remaining, undefined, seen);
    }
  }
}

function isSettled(run: Workflow, waitUntil: readonly string[]): boolean {
  if (isTerminalWorkflowStatus(run.status)) return true;
  if (run.tasks.some(isBlocked)) return true;
  return run.tasks.some(
    (task) => waitUntil.includes(task.referenceTaskName) && isTerminalTaskStatus(task.status),
  );
}

/** An open task that waits for the outside world rather than for a worker or a timer. */
export function isBlocked(task: TaskRecord): boolean {
  if (isTerminalTaskStatus(task.status)) return false;
  switch (kindNameOf(task.workflowTask)) {
    case 'HUMAN':
      return true;
    case 'WAIT':
      return task.inputData.duration === undefined && task.inputData.until === undefined;
    case 'PULL_WORKFLOW_MESSAGES':
      return task.status === 'IN_PROGRESS' && task.inputData.blocking !== false;
    default:
      return false;
  }
}

function answer(run: Workflow, options: ExecuteOptions, timedOut: boolean): ExecuteAnswer {
  const out: ExecuteAnswer = copyWith(run, {
    responseType: 'TARGET_WORKFLOW',
    targetWorkflowId: run.workflowId,
    targetWorkflowStatus: run.status,
  });
  if (options.requestId !== undefined) out.requestId = options.requestId;
  if (timedOut) out.signalTimeout = true;
  return out;
}
