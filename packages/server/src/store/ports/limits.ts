import type { PortAccess } from './access.js';

/** The hand-out limit state of a task type, read under its lock (`Tx.lockTaskLimit`). */
export interface TaskLimitState {
  /** Tasks of the type IN_PROGRESS now (committed), for `concurrentExecLimit`. */
  inProgress: number;
  /** Start (epoch ms) of the current rate-limit window; 0 before the first hand-out. */
  windowStart: number;
  /** Hand-outs counted in that window. */
  windowCount: number;
}

/** Hand-out limits (concurrentExecLimit, rateLimitPerFrequency). */
export interface LimitsPort {
  /**
   * Locks the limit row of a task type (made on first use) until the transaction ends, then
   * answers its state. Hand-outs of a limited type take turns on this row on every node, so the
   * count read here cannot be overtaken by another node's hand-out before this one commits.
   */
  lockTaskLimit(taskType: string): Promise<TaskLimitState>;
  /** Stores the rate-limit window of a task type (after `lockTaskLimit` in the same transaction). */
  setTaskRateWindow(taskType: string, windowStart: number, windowCount: number): Promise<void>;
  /**
   * Gives claimed messages back without handing them out: visible again at `visibleAt`, lock
   * and worker cleared, and the claim's delivery not counted (a task over a limit).
   */
  deferMessages(taskIds: readonly string[], visibleAt: number): Promise<void>;
}

/** Which `LimitsPort` methods write (refused inside `read()`); every method is checked (tx-access.ts). */
export const LIMITS_ACCESS = {
  lockTaskLimit: 'write',
  setTaskRateWindow: 'write',
  deferMessages: 'write',
} as const satisfies PortAccess<LimitsPort>;
