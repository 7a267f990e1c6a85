import { applyChildEnded, applyChildNotStarted } from './child-runs.js';
import { applyChildRetried } from './child-retried.js';
import { evaluate } from './evaluate.js';
import { applyFault } from './faults.js';
import { workflowTimeoutTimer } from './attempt-timers.js';
import { applyRequeue } from './requeue.js';
import { applyResult } from './results.js';
import { decideRunControl } from './run-control.js';
import { RunState } from './run-state.js';
import { applyTimer } from './timer-events.js';
import type { DecideContext, Decision, EngineEvent } from './types.js';
import { copyWith } from '../copy-with.js';

export { runStatusForFailedTask, taskFailureReason } from './run-end.js';

/**
 * The interpreter: given a run, its tasks and one event, says what changes. Pure: it reads
 * time, ids and randomness only from `ctx`, and never changes `ctx` (changed records are
 * copies). Each event kind is applied by its own module; `evaluate` then moves the run on.
 * See ARCHITECTURE.md.
 */
export function decide(ctx: DecideContext, event: EngineEvent): Decision {
  const state = new RunState(ctx);
  switch (event.type) {
    case 'START':
      state.command(...workflowTimeoutTimer(ctx.newId, ctx.run.workflowDefinition.timeoutSeconds, ctx.now));
      evaluate(state);
      return state.decision();
    case 'DECIDE':
      evaluate(state);
      return state.decision();
    case 'TASK_RESULT': {
      const outcome = applyResult(state, event.result, event.detach === true);
      if (outcome === 'ignored') return state.decision(true);
      if (outcome === 'ended') evaluate(state);
      return state.decision();
    }
    case 'TASK_RESULTS': {
      const ignored: string[] = [];
      for (const { result, detach } of event.results) {
        const outcome = applyResult(state, result, detach === true);
        if (outcome === 'ignored') ignored.push(result.taskId);
        if (outcome === 'ended') evaluate(state);
      }
      const decision = state.decision(ignored.length === event.results.length);
      return ignored.length === 0 ? decision : copyWith(decision, { ignoredResults: ignored });
    }
    case 'REQUEUE_TASK': {
      if (applyRequeue(state, event.taskId) === 'ignored') return state.decision(true);
      evaluate(state);
      return state.decision();
    }
    case 'TIMER': {
      if (applyTimer(state, event.timer) === 'ignored') return state.decision(true);
      evaluate(state);
      return state.decision();
    }
    case 'CHILD_ENDED': {
      if (applyChildEnded(state, event) === 'ignored') return state.decision(true);
      evaluate(state);
      return state.decision();
    }
    case 'CHILD_RETRIED': {
      if (applyChildRetried(state, event) === 'ignored') return state.decision(true);
      evaluate(state);
      return state.decision();
    }
    case 'CHILD_NOT_STARTED': {
      if (applyChildNotStarted(state, event.taskId, event.reason) === 'ignored') return state.decision(true);
      evaluate(state);
      return state.decision();
    }
    case 'FAULT':
      return applyFault(state, event.reason);
    case 'PARENT_ENDED':
      // A parent's end terminates its child exactly as an operator's terminate does.
      return decideRunControl(state, { type: 'TERMINATE', reason: event.reason });
    case 'PAUSE':
    case 'RESUME':
    case 'TERMINATE':
    case 'SKIP_TASK':
    case 'SIGNAL':
    case 'MAILBOX':
    case 'RERUN_FROM':
      return decideRunControl(state, event);
  }
}
