import type {
  JsonObject,
  RunRecord,
  RunTrace,
  TaskDef,
  TaskRecord,
  TaskResult,
  WorkflowDef,
  WorkflowStatus,
  WorkflowMessage,
} from '@baton/protocol';

import type { ScriptRunner } from './scripts.js';

/**
 * The interpreter's contract. `decide` is pure: no I/O, no clock, no randomness, no id
 * generation of its own. Everything it needs comes in `DecideContext`; everything it wants
 * done comes out in `Decision`, which the executor applies in one transaction.
 */
export interface DecideContext {
  /** The run's own snapshot of its definition (`run.workflowDefinition`). */
  readonly run: RunRecord;
  /** Every task of the run, ordered by seq. */
  readonly tasks: readonly TaskRecord[];
  /** Registered task definitions for the worker task names the definition uses. */
  readonly taskDefs: ReadonlyMap<string, TaskDef>;
  readonly now: number;
  /** Makes a fresh id (tasks, messages). Deterministic in tests. */
  readonly newId: () => string;
  /** Random number in [0, 1) for retry jitter; fixed in tests. */
  readonly random: () => number;
  readonly settings: EngineSettings;
  /** Sandboxed JavaScript and jq (`scripts.ts`). */
  readonly scripts: ScriptRunner;
  /**
   * Whether a worker has polled this queue lately (liveness, a snapshot the caller supplies).
   * Picks the domain from a `taskToDomain` comma list; absent = nobody known to poll.
   */
  readonly isQueuePolled?: (queueName: string) => boolean;
  /**
   * The run's mailbox, oldest first: loaded only for runs whose definition reads it
   * (PULL_WORKFLOW_MESSAGES); absent otherwise.
   */
  readonly mailbox?: readonly WorkflowMessage[];
  /**
   * The latest text of each instruction the definition names (`${instructions.NAME}`, a HUMAN
   * task's `instructions`), loaded by the caller: expressions read it, no I/O in here.
   */
  readonly instructions?: Readonly<Record<string, string>>;
}

export interface EngineSettings {
  /** Runs with priority at or above this go to `{type}-high` queues. */
  readonly highPriorityThreshold: number;
  /**
   * The most branches one dynamic fork may make (`FORK_JOIN_DYNAMIC`); a wider one fails its run
   * with a message that names the width and the limit. Each decision on a run reads every branch
   * the run has made (store ARCHITECTURE.md, "The decide set"), so a fork's width is what each of
   * its results costs: unbounded, one input list could occupy a node for hours.
   */
  readonly maxForkBranches: number;
  /**
   * The largest output the engine assembles from other tasks' outputs (a JOIN's, a DO_WHILE's),
   * in bytes of JSON; a larger one fails its task (kinds/assembled-output.ts).
   */
  readonly maxOutputBytes: number;
  /**
   * A worker task queued at once is ordered in its queue as if queued up to this many ms earlier,
   * but never before its run began (queue-order.ts): a run under way goes before runs that
   * began after it, so a fork's branches do not wait behind a backlog of new runs' first tasks.
   * Absent or 0: strictly in the order queued, as Conductor's queues.
   */
  readonly queueRunAgeMs?: number;
}

/** What wakes a run. */
export type EngineEvent =
  | { readonly type: 'START' }
  /** A worker's (or an external caller's) result for one task. */
  | {
      readonly type: 'TASK_RESULT';
      readonly result: TaskResult;
      /**
       * With an IN_PROGRESS result: the task leaves its queue and stays IN_PROGRESS until it is
       * completed from outside (a system call with `asyncComplete: true`, as Conductor's).
       */
      readonly detach?: boolean;
    }
  /**
   * Several results for tasks of one run that reached the node together (the branches of a fork
   * ending at once), decided as one: each applied, and the run moved on after it, in order, as
   * that many TASK_RESULT events one after the other would; written once.
   */
  | { readonly type: 'TASK_RESULTS'; readonly results: readonly ResultEvent[] }
  /** Re-evaluate without new input (repair, resume). */
  | { readonly type: 'DECIDE' }
  /** A durable timer of this run came due (claimed by the timer loop; see `TimerSpec`). */
  | { readonly type: 'TIMER'; readonly timer: FiredTimer }
  /** A child run started by this run's SUB_WORKFLOW task ended (sent in the child's ending transaction). */
  | {
      readonly type: 'CHILD_ENDED';
      readonly taskId: string;
      readonly childWorkflowId: string;
      readonly status: WorkflowStatus;
      readonly output: JsonObject;
      readonly reason?: string;
      /** `name.version/id` of the child, for the task's reason (Conductor's `toShortString`). */
      readonly child: string;
    }
  /**
   * The child run `previousChildId` of this run's SUB_WORKFLOW task `taskId` was retried,
   * restarted or rerun (the new child is `childWorkflowId`) or reopened (the same id): a run
   * that task ended resumes.
   */
  | {
      readonly type: 'CHILD_RETRIED';
      readonly taskId: string;
      readonly previousChildId: string;
      readonly childWorkflowId: string;
    }
  /** The child asked by this run's SUB_WORKFLOW task `taskId` could not be started (no such definition, …). */
  | { readonly type: 'CHILD_NOT_STARTED'; readonly taskId: string; readonly reason: string }
  /** This run's parent ended while this run was open: the run is TERMINATED with `reason`. */
  | { readonly type: 'PARENT_ENDED'; readonly reason: string }
  /** Reopen a dead-lettered task as a new attempt (admin requeue); a run it failed returns to RUNNING. */
  | { readonly type: 'REQUEUE_TASK'; readonly taskId: string }
  /**
   * The decision on another event threw (`faults.ts`): the run FAILS with `reason`, its open
   * tasks canceled, rather than staying RUNNING while every later event fails the same way.
   */
  | { readonly type: 'FAULT'; readonly reason: string }
  | RunControlEvent;

/** Operators' and callers' run operations (`run-control.ts`, `signals.ts`). */
export type RunControlEvent =
  /** RUNNING → PAUSED: nothing new is scheduled; results are still recorded. */
  | { readonly type: 'PAUSE' }
  /** PAUSED → RUNNING, and the run moves on at once. */
  | { readonly type: 'RESUME' }
  /** Open tasks CANCELED, timers cancelled, run TERMINATED with the reason. */
  | { readonly type: 'TERMINATE'; readonly reason: string }
  /** A waiting (or not yet reached) task becomes SKIPPED with this output; the run continues. */
  | {
      readonly type: 'SKIP_TASK';
      readonly taskRef: string;
      readonly taskInput?: JsonObject;
      readonly taskOutput?: JsonObject;
    }
  /**
   * Wakes the first blocked task that accepts signals (`TaskKind.onSignal`). `messageId` names
   * the mailbox message the signal was appended as, if any: taken when a task takes the signal.
   */
  | {
      readonly type: 'SIGNAL';
      readonly status: SignalStatus;
      readonly output: JsonObject;
      readonly messageId?: string;
    }
  /** New messages are in the mailbox (`ctx.mailbox`): blocked readers take them. */
  | { readonly type: 'MAILBOX' }
  /**
   * First decision of a run made by rerun: like START over the copied tasks, then the first
   * task made for `taskRef` gets `taskInput` merged into its input.
   */
  | { readonly type: 'RERUN_FROM'; readonly taskRef: string; readonly taskInput?: JsonObject };

/** Statuses a signal may complete a task with. */
export type SignalStatus = 'COMPLETED' | 'FAILED' | 'FAILED_WITH_TERMINAL_ERROR';

/**
 * What a durable timer is for. Timers live in the store's `timers` table, are armed and
 * cancelled by commands in the same transaction as the state they guard, and come back to
 * the run as a `TIMER` event when due (docs/design/shape.md#durable-timers-the-only-sweeper).
 */
export type TimerKind =
  /** WAIT task `duration`/`until` (handled by the task's kind, `TaskKind.onTimer`). */
  | 'WAIT'
  /** Task queued and never polled within `pollTimeoutSeconds`. */
  | 'POLL_TIMEOUT'
  /** Worker took the task and sent no result within `responseTimeoutSeconds` (lock expiry). */
  | 'RESPONSE_TIMEOUT'
  /** Task not completed within `timeoutSeconds` of being queued. */
  | 'TASK_TIMEOUT'
  /** All attempts of a task together exceeded `totalTimeoutSeconds`. */
  | 'TOTAL_TIMEOUT'
  /** The run exceeded its definition's `timeoutSeconds`. */
  | 'WORKFLOW_TIMEOUT'
  /**
   * Due at once: a decision that acted on MAX_TASKS_PER_STEP tasks stopped there, and the run
   * moves on in a later step (a loop over tasks that never wait keeps no transaction forever).
   */
  | 'CONTINUE'
  /**
   * Due at once: a run start this task asked for (its `START_CHILD` or `START_WORKFLOW`, whole, as
   * `payload.command`), put off by the executor's loop guard to a later transaction
   * (decisions/linked-runs.ts); firing asks for it again while the task still waits for it.
   */
  | 'START_RUN';

/** A timer to arm: fires `dueAt` (epoch ms) unless cancelled first. */
export interface TimerSpec {
  readonly timerId: string;
  readonly kind: TimerKind;
  readonly dueAt: number;
  /** The task the timer guards; absent for run-level timers. */
  readonly taskId?: string;
  readonly payload?: JsonObject;
}

/** A timer as it comes back when due. */
export interface FiredTimer extends TimerSpec {
  readonly workflowId: string;
}

/** Side effects outside the run and task rows, applied in the same transaction. */
export type Command =
  | {
      readonly type: 'ENQUEUE';
      readonly taskId: string;
      readonly queueName: string;
      readonly taskRef: string;
      readonly attempt: number;
      readonly priority: number;
      readonly visibleAt: number;
      readonly lockMs: number;
    }
  | { readonly type: 'DEQUEUE'; readonly taskId: string }
  /** Re-send an existing message at `visibleAt` (callbackAfterSeconds). */
  | { readonly type: 'REQUEUE'; readonly taskId: string; readonly visibleAt: number }
  | { readonly type: 'EXTEND_LOCK'; readonly taskId: string; readonly lockedUntil: number }
  /** Arms a durable timer for this run, in the same transaction as the decision. */
  | { readonly type: 'ARM_TIMER'; readonly timer: TimerSpec }
  /**
   * Cancels this run's timers that guard `taskId` (all of the run's timers when absent), only
   * those of `kinds` when given. The executor also cancels every timer of a run that has ended.
   */
  | {
      readonly type: 'CANCEL_TIMERS';
      readonly taskId?: string;
      readonly kinds?: readonly TimerKind[];
    }
  /**
   * Starts a child run for this run's SUB_WORKFLOW task `taskId`, in the same transaction. The
   * executor loads the definition (`definition` when inline, else `name`/`version`, latest when
   * no version); when it cannot, the task fails with the reason (`CHILD_NOT_STARTED` to this run).
   */
  | {
      readonly type: 'START_CHILD';
      readonly taskId: string;
      readonly childWorkflowId: string;
      readonly name: string;
      readonly version?: number;
      readonly definition?: WorkflowDef;
      /** `definition` came from data: the run started gets `definitionFromData`. */
      readonly definitionFromData?: true;
      readonly input: JsonObject;
      readonly taskToDomain: Record<string, string>;
      readonly priority: number;
    }
  /**
   * Starts an unrelated run for this run's START_WORKFLOW task `taskId` (fire and forget), then
   * completes the task with output `{workflowId}`, or fails it with the reason.
   */
  | {
      readonly type: 'START_WORKFLOW';
      readonly taskId: string;
      readonly workflowId: string;
      readonly name: string;
      readonly version?: number;
      readonly definition?: WorkflowDef;
      /** `definition` came from data: the run started gets `definitionFromData`. */
      readonly definitionFromData?: true;
      readonly input: JsonObject;
      readonly correlationId?: string;
      readonly taskToDomain: Record<string, string>;
      readonly priority: number;
    }
  /** Terminates a child run of this run (its SUB_WORKFLOW task was canceled); sends it PARENT_ENDED. */
  | { readonly type: 'TERMINATE_CHILD'; readonly childWorkflowId: string; readonly reason: string }
  /** Removes these messages from the run's mailbox (taken by a task). */
  | { readonly type: 'TAKE_MESSAGES'; readonly messageIds: readonly string[] }
  /**
   * Retries exhausted: the task's message moves to the dead-letter queue instead of being removed
   * (wins over a DEQUEUE of the same task in the decision). Carries the message so a missing one
   * is recreated dead-lettered.
   */
  | {
      readonly type: 'DEAD_LETTER';
      readonly taskId: string;
      readonly queueName: string;
      readonly taskRef: string;
      readonly attempt: number;
      readonly priority: number;
      readonly lockMs: number;
    }
  /** A timeout under ALERT_ONLY: handed to the executor's `onAlert` hook after commit (a metric). */
  | { readonly type: 'ALERT'; readonly alert: EngineAlert }
  /** An EVENT task's message: written to the outbox in the decision's transaction, sent after commit. */
  | {
      readonly type: 'PUBLISH_EVENT';
      readonly sink: string;
      readonly messageId: string;
      readonly payload: JsonObject;
    };

/** The commands that start a run: a SUB_WORKFLOW's child, a START_WORKFLOW's run. */
export type StartCommand = Extract<Command, { type: 'START_CHILD' | 'START_WORKFLOW' }>;

/** A timeout under ALERT_ONLY: recorded on the task (or run) and counted as a metric by the executor's hook. */
export interface EngineAlert {
  readonly kind: TimerKind;
  readonly workflowId: string;
  readonly workflowName: string;
  readonly taskId?: string;
  readonly taskRef?: string;
  readonly taskType?: string;
  readonly message: string;
}

/** One result of a TASK_RESULTS event. */
export interface ResultEvent {
  readonly result: TaskResult;
  /** As TASK_RESULT's `detach`. */
  readonly detach?: boolean;
}

export interface Decision {
  /** The run after the event; `runChanged` says whether it must be written. */
  readonly run: RunRecord;
  readonly runChanged: boolean;
  readonly newTasks: readonly TaskRecord[];
  /** Existing tasks whose record changed (full records). */
  readonly updatedTasks: readonly TaskRecord[];
  readonly commands: readonly Command[];
  /** True when the event was a result for a task that had already ended: acknowledged, ignored. */
  readonly ignored: boolean;
  /** TASK_RESULTS: the task ids of its results that were ignored (each as TASK_RESULT's `ignored`). */
  readonly ignoredResults?: readonly string[];
}

/** Input for making a new run record; the service fills ids and times. */
export interface NewRunInput {
  readonly workflowId: string;
  readonly definition: WorkflowDef;
  readonly input: JsonObject;
  readonly correlationId?: string;
  readonly priority: number;
  readonly taskToDomain: Record<string, string>;
  readonly idempotencyKey?: string;
  readonly parentWorkflowId?: string;
  readonly parentWorkflowTaskId?: string;
  /** A child run's place in its queues: its parent's (`RunRecord.queueSince`). */
  readonly queueSince?: number;
  /** The event (`amqp:orders`) whose handler started the run (Conductor's `Workflow.event`). */
  readonly event?: string;
  /** Until when a synchronous execute waits for the run (`RunRecord.syncWaitUntil`). */
  readonly syncWaitUntil?: number;
  readonly now: number;
  /** The definition came from data (`RunRecord.definitionFromData`). */
  readonly definitionFromData?: true;
  /** The run's trace context, when the caller made it (tracing; kept as given). */
  readonly trace?: RunTrace;
}
