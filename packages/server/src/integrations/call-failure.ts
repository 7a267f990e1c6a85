import type { CallOutcome } from './call-handler.js';
import { EgressDeniedError } from './http/egress-policy.js';

/** A bad input or configuration found before any request went out. */
export class CallInputError extends Error {
  override name = 'CallInputError';
  constructor(
    message: string,
    /** Terminal: no new attempt can succeed with the same input (an unknown operation, a schema failure). */
    readonly terminal = true,
  ) {
    super(message);
  }
}

/** The message of anything thrown, cut to a size a task record can carry. */
export function messageOf(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.length > 4000 ? `${text.slice(0, 4000)}…` : text;
}

/** The innermost `cause` of an error (fetch reports "fetch failed" and puts what happened in its cause). */
function rootCause(err: unknown): unknown {
  let current = err;
  for (let depth = 0; depth < 10 && current instanceof Error && current.cause !== undefined; depth++) {
    current = current.cause;
  }
  return current;
}

/**
 * A failed outcome for what a handler threw: input errors and a destination the egress policy
 * refuses end the task (no attempt can do better); others may be retried.
 */
export function failureOf(err: unknown, prefix: string): CallOutcome {
  const cause = rootCause(err);
  if (cause instanceof EgressDeniedError) {
    return { status: 'FAILED_WITH_TERMINAL_ERROR', reason: `${prefix}: ${messageOf(cause)}` };
  }
  if (cause !== err && err instanceof Error && /fetch failed/i.test(err.message)) {
    return { status: 'FAILED', reason: `${prefix}: ${messageOf(cause)}` };
  }
  if (err instanceof CallInputError) {
    return {
      status: err.terminal ? 'FAILED_WITH_TERMINAL_ERROR' : 'FAILED',
      reason: `${prefix}: ${messageOf(err)}`,
    };
  }
  return { status: 'FAILED', reason: `${prefix}: ${messageOf(err)}` };
}
