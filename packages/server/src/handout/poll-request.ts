/** A worker's poll: the task type, who asks, and how many tasks for how long. */
export interface PollRequest {
  taskType: string;
  workerId: string;
  domain?: string;
  count: number;
  /** How long to wait for work, in ms (0 = answer at once). */
  timeoutMs: number;
  /** Aborts the wait when the caller has gone away. */
  signal?: AbortSignal;
}
