import type { TaskKind } from './kind.js';
import { scheduleCompleted } from './system-task.js';

/** NOOP (Conductor's `Noop`): completes at once. */
export const noopKind: TaskKind = {
  kind: 'NOOP',
  retryable: false,
  // Ends in the decision that makes it: seen open only when something outside completes it.
  waiting: 'outside',
  schedule: (sctx, node, request) => scheduleCompleted(sctx, node, request),
  check: () => [],
};
