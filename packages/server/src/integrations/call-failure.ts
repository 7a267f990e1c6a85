import type { CallOutcome } from './call-handler.js';

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

/** A failed outcome for what a handler threw: input errors end the task, others may be retried. */
export function failureOf(err: unknown, prefix: string): CallOutcome {
  if (err instanceof CallInputError) {
    return {
      status: err.terminal ? 'FAILED_WITH_TERMINAL_ERROR' : 'FAILED',
      reason: `${prefix}: ${messageOf(err)}`,
    };
  }
  return { status: 'FAILED', reason: `${prefix}: ${messageOf(err)}` };
}
