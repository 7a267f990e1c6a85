import type { TaskRecord, WorkflowStatus, WorkflowTask } from '@baton/protocol';
import type { RunState } from '../run-state.js';
import type { ScheduleRequest } from './schedule-context.js';

/**
 * What container kinds may ask of the interpreter while it moves a run (implemented by
 * `evaluate.ts`; passed in, so kinds never import the interpreter and no import cycle forms).
 */
export interface Flow {
  readonly state: RunState;
  /**
   * Schedules a definition node with loop suffix `suffix`, unless a task with that ref already
   * exists (scheduling is idempotent: runs re-walked from copied tasks schedule nothing twice).
   * Answers the tasks made (none when it existed, or when the run failed instead).
   */
  schedule(node: WorkflowTask, suffix: string, request?: ScheduleRequest): readonly TaskRecord[];
  /** Moves past `task`: schedules what follows it in its list, or tells its container its list ended. */
  continueAfter(task: TaskRecord): void;
  /** Ends the run FAILED with this reason (every open task canceled). */
  fail(reason: string): void;
  /**
   * Ends the run with `status` and `reason` (every open task canceled, a failure workflow
   * started for FAILED/TERMINATED): TERMINATE's way out, without importing `run-end.ts`, whose
   * cancel hooks need the kind registry (an import cycle otherwise).
   */
  endRun(status: WorkflowStatus, reason: string): void;
}
