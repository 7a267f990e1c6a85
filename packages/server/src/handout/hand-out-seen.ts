/** What one hand-out saw, observed (metrics, liveness) only once it has committed. */
export interface HandOutSeen {
  polledAt: number;
  /** Schedule-to-start latency of tasks handed out for the first time. */
  firstStarts: Map<string, number>;
  /** Tasks held back by a limit. */
  deferredBy: Array<{ type: string; reason: string }>;
  /** The queues those went back on, delayed: other polls waiting there learn the new due time. */
  deferredQueues: Set<string>;
}

export function newHandOutSeen(polledAt: number): HandOutSeen {
  return { polledAt, firstStarts: new Map(), deferredBy: [], deferredQueues: new Set() };
}
