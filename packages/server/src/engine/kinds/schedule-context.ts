import type { JsonObject, RunRecord, TaskRecord, WorkflowMessage } from '@baton/protocol';
import type { ExpressionDocument } from '../expressions.js';
import type { DecideContext } from '../types.js';

/*
 * What a kind is given when the interpreter makes its tasks. Apart from kind.ts, so that the run
 * state (which builds the context) and the flow (which takes a request) need not import kind.ts,
 * which imports them.
 */

export interface ScheduleContext {
  readonly ctx: DecideContext;
  /** The run as it stands in this decision. */
  readonly run: RunRecord;
  /** Every task of the run as it stands in this decision, in seq order. */
  readonly tasks: readonly TaskRecord[];
  /** seq of the first task made; further tasks take the numbers after it. */
  readonly nextSeq: number;
  /** The expression document of the run as it stands (built on demand). */
  readonly expressionDocument: () => ExpressionDocument;
  /** Mailbox messages not yet taken in this decision (empty when the mailbox was not loaded). */
  readonly availableMessages: () => readonly WorkflowMessage[];
  /** A rerun's `taskInput` for the task it reruns from: merged into that task's input when made. */
  readonly rerunInput?: { readonly ref: string; readonly input: JsonObject };
}

export interface ScheduleRequest {
  /** Set when the task to make is a new attempt of this (failed) task. */
  readonly retryOf?: TaskRecord;
  /** With `retryOf`: how long after now the new attempt may start, in ms. */
  readonly delayMs?: number;
  /** Where the task is made: inside loop iterations its ref gets `scope.suffix` (`__N`). */
  readonly scope?: Scope;
  /** JOIN after FORK_JOIN_DYNAMIC: the refs (with suffix) to wait on, computed at the fork. */
  readonly joinOn?: readonly string[];
}

/** The loop iterations a task is made in: suffix `''` at top level, `__2` in iteration 2, `__2__1` nested. */
export interface Scope {
  readonly suffix: string;
  /** The innermost loop's iteration (0 outside loops): the task's `iteration`. */
  readonly iteration: number;
}
