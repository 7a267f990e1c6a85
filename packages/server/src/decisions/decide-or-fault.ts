import { decide, faultReason, type DecideContext, type Decision, type EngineEvent } from '../engine/index.js';
import { ControlFlowError } from '../control-flow-error.js';

/**
 * `decide`, fenced: a decision that throws is a fault of the decision (a bug, or data the engine
 * cannot handle), which the same event would meet on every attempt, so the run is decided `FAULT`
 * over the same context instead: failed with the error (engine/faults.ts). A script result still
 * to come (a `ControlFlowError`) steers and goes up; when even `FAULT` throws, the error goes up
 * and the run stays as it was.
 */
export function decideOrFault(
  ctx: DecideContext,
  event: EngineEvent,
  onFault?: (workflowId: string, event: EngineEvent['type'], error: unknown) => void,
): Decision {
  try {
    return decide(ctx, event);
  } catch (error) {
    if (error instanceof ControlFlowError) throw error;
    const decision = decide(ctx, { type: 'FAULT', reason: faultReason(error, event) });
    onFault?.(ctx.run.workflowId, event.type, error);
    return decision;
  }
}
