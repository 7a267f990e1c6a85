import type { JsonObject, TaskRecord, ValidationError, WorkflowTask } from '@baton/protocol';
import type { RunState } from '../run-state.js';
import type { ScriptRunner } from '../scripts.js';
import type { Command, FiredTimer, SignalStatus } from '../types.js';
import type { Flow } from './flow.js';
import type { KindWaiting } from './waiting-explanation.js';
import type { ScheduleContext, ScheduleRequest } from './schedule-context.js';

export type { ScheduleContext, ScheduleRequest, Scope } from './schedule-context.js';

/**
 * A task kind: how a definition node of this kind becomes task records and commands when the
 * interpreter reaches it, what registration checks it needs beyond the common ones, and how an
 * open task of it waits. Each kind is one module under `kinds/`, listed in `kinds/registry.ts`;
 * what the SDK and the UI also know of it (label, diagram shape, nested lists, SDK builder) is
 * its entry in protocol's `TASK_KIND_INFO`. See docs/adding-a-task-kind.md.
 */
export interface TaskKind {
  /** The `type` string of the definition node (`SIMPLE`, `SWITCH`, …; `USER_DEFINED` for unknown types). */
  readonly kind: string;
  /** Whether a failed task of this kind gets new attempts (Conductor never retries its built-ins). */
  readonly retryable: boolean;
  /**
   * With `retryable`: only a task that has a task definition (inline or registered under its
   * name) gets new attempts; Conductor gives a SUB_WORKFLOW, WAIT or system call (HTTP, …) without
   * one none.
   */
  readonly retriesNeedTaskDefinition?: boolean;
  /**
   * How an open task of this kind waits, for the task and run views' `waitingFor`
   * (`waiting-explanation.ts`): on its queue message, for something outside, or explained by
   * the kind from its record and the facts it asks for.
   */
  readonly waiting: KindWaiting;
  /** Makes the task(s) for a definition node reached by the run (or a new attempt of one). */
  schedule(sctx: ScheduleContext, workflowTask: WorkflowTask, request: ScheduleRequest): ScheduleOutcome;
  /**
   * Checks this kind's own fields of a definition node at `path` (e.g. `tasks[2]`). Common
   * fields (name, ref, retryCount, inputParameters, expressions) are checked by the caller.
   */
  check(workflowTask: WorkflowTask, path: string, cctx: CheckContext): ValidationError[];
  /**
   * A `WAIT`-kind timer armed by this kind for `task` came due (the task is still open). Changes
   * the task through `state` and answers 'changed', or 'ignored' when the timer no longer applies.
   */
  onTimer?(state: RunState, task: TaskRecord, timer: FiredTimer): 'ignored' | 'changed';
  /**
   * The open `task` is being canceled because its run ends (failed, terminated, timed out):
   * the commands that undo what it started outside the run (SUB_WORKFLOW terminates its child).
   */
  cancel?(task: TaskRecord, reason: string): Command[];
  /**
   * A signal reached the run. A kind that blocks on outside input (WAIT without a timer, HUMAN,
   * blocking PULL_WORKFLOW_MESSAGES) takes it when `task` is blocked: changes the task through
   * `state` and answers 'changed'; otherwise 'ignored' and the next open task is asked.
   */
  onSignal?(state: RunState, task: TaskRecord, signal: Signal): 'ignored' | 'changed';
  /** New mailbox messages arrived (`state.availableMessages()`): a blocked reader may take them. */
  onMailbox?(state: RunState, task: TaskRecord): 'ignored' | 'changed';

  // Control flow (see ARCHITECTURE.md, "Containers and loops"). All optional: a kind without
  // them is a plain step, and what follows it is scheduled when it succeeds.

  /** Right after the kind's task(s) were added (DO_WHILE starts its first iteration, JOIN checks). */
  onScheduled?(flow: Flow, task: TaskRecord): void;
  /**
   * The task ended successfully and is acted on: replaces "schedule what follows it" (a SWITCH
   * schedules its chosen branch, a FORK its branches and JOIN, TERMINATE ends the run).
   */
  onSuccess?(flow: Flow, task: TaskRecord): void;
  /** The last task of one of this container's lists ended (`container` is this kind's task). */
  onBranchEnd?(flow: Flow, container: TaskRecord, ended: TaskRecord): void;
  /** Refs (with loop suffixes) whose end makes this open task check again (`recheck`). */
  watches?(task: TaskRecord): readonly string[];
  /** Checks an open waiting task (JOIN, EXCLUSIVE_JOIN) again and ends it when it can. */
  recheck?(flow: Flow, task: TaskRecord): void;
  /** True when only the interpreter ends this kind's tasks: results posted for them are ignored. */
  readonly engineOnly?: boolean;
}

/**
 * What registration asks of the server about system calls (HTTP, CALL_TOOL, …), supplied by
 * the composition root from its call handlers. `kind` is the normalised kind (`CALL_TOOL` for
 * `CALL_MCP_TOOL`).
 */
export interface SystemCallChecks {
  /** Whether a handler for this kind is registered. */
  supports(kind: string): boolean;
  /** The handler's checks of a node's own fields at `path` (e.g. `tasks[0]`). */
  check(kind: string, node: WorkflowTask, path: string): ValidationError[];
}

export interface Signal {
  readonly status: SignalStatus;
  readonly output: JsonObject;
}

export type ScheduleOutcome =
  | { readonly ok: true; readonly tasks: readonly TaskRecord[]; readonly commands: readonly Command[] }
  /** The node cannot be scheduled: the run fails with this reason. */
  | { readonly ok: false; readonly reason: string };

export interface CheckContext {
  /** Names of the registered task definitions. */
  readonly taskDefNames: ReadonlySet<string>;
  /** Parses scripts and compiles jq filters for the kinds that carry them. */
  readonly scripts: ScriptRunner;
  /**
   * Whether a workflow definition exists (any version when `version` is undefined), for kinds
   * that name other definitions (SUB_WORKFLOW). Absent: those checks are skipped.
   */
  readonly workflowExists?: (name: string, version?: number) => boolean;
  /**
   * The server's call handlers (HTTP, CALL_TOOL, …). Absent: every system-call kind is refused
   * (nothing would run it).
   */
  readonly systemCalls?: SystemCallChecks;
}
