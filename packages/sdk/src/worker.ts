import type { JsonObject, TaskRecord } from '@baton/protocol';

/** Everything a handler may do besides returning: log, look at the task, notice a forced stop. */
export interface TaskContext {
  readonly taskId: string;
  readonly workflowId: string;
  /** 1 for the first attempt, 2 for the first retry, … */
  readonly attempt: number;
  /** How often this attempt has been handed out (more than 1 after a callback). */
  readonly pollCount: number;
  /** The task record as polled (input, the output of an earlier callback round, …). */
  readonly task: TaskRecord;
  /** Aborted when the worker stops before the handler ends: the task is handed back. */
  readonly signal: AbortSignal;
  /** A log line, sent with the result (GET /api/tasks/{taskId}/log shows it). */
  log(line: string): void;
}

/** A handler's "not done yet: call me back in N seconds" (IN_PROGRESS + callbackAfterSeconds). */
export interface InProgress<O> {
  readonly kind: 'in-progress';
  readonly callbackAfterSeconds: number;
  readonly outputData: Partial<O> | undefined;
}

/** Answer IN_PROGRESS: the task comes back to a worker after `callbackAfterSeconds`. */
export function inProgress<O = JsonObject>(
  callbackAfterSeconds: number,
  outputData?: Partial<O>,
): InProgress<O> {
  if (!Number.isInteger(callbackAfterSeconds) || callbackAfterSeconds < 0) {
    throw new RangeError(
      `callbackAfterSeconds must be a whole number of seconds ≥ 0, got ${callbackAfterSeconds}`,
    );
  }
  return { kind: 'in-progress', callbackAfterSeconds, outputData };
}

export function isInProgress(value: unknown): value is InProgress<unknown> {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'in-progress';
}

/**
 * The work for one task type. The handler receives the task's `inputData`; what it returns is
 * posted as `outputData` with COMPLETED; a thrown error posts FAILED with its message (retried
 * while the definition allows); a thrown TerminalError posts FAILED_WITH_TERMINAL_ERROR.
 */
export interface WorkerDefinition<I extends object = JsonObject, O extends object = JsonObject> {
  taskType: string;
  handler: (input: I, context: TaskContext) => Promise<O | InProgress<O>> | O | InProgress<O>;
  /** Tasks of this type run at once by this process (default 1). Each poll asks for the free slots. */
  concurrency?: number;
  /** Poll the `{domain}-{type}` queue (runs started with taskToDomain). */
  domain?: string;
  /** Longest idle wait between empty polls, ms (default 1000; the back-off starts at 1 ms). */
  pollIntervalMs?: number;
  /**
   * Keep the task's lock while the handler runs, by posting IN_PROGRESS with extendLease before
   * `responseTimeoutSeconds` lapses (default true). Off: a handler longer than the response
   * timeout loses its task to a new attempt.
   */
  leaseExtension?: boolean;
}

/** A worker definition with its types pinned, for arrays of workers of different types. */
export type Worker = WorkerDefinition<never, JsonObject> & { readonly __typed: true };

/** Declares a typed worker: `defineWorker<{who: string}, {greeting: string}>({taskType, handler})`. */
export function defineWorker<I extends object = JsonObject, O extends object = JsonObject>(
  definition: WorkerDefinition<I, O>,
): Worker {
  const concurrency = definition.concurrency ?? 1;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 1000) {
    throw new RangeError(
      `${definition.taskType}: concurrency must be an integer from 1 to 1000, got ${concurrency}`,
    );
  }
  const interval = definition.pollIntervalMs ?? 1000;
  if (!Number.isFinite(interval) || interval < 1 || interval > 60_000) {
    throw new RangeError(`${definition.taskType}: pollIntervalMs must be from 1 to 60000, got ${interval}`);
  }
  if (definition.taskType.length === 0) throw new RangeError('taskType must not be empty');
  return { ...definition, __typed: true } as unknown as Worker;
}
