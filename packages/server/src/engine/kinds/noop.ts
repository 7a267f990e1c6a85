import type { TaskKind } from './kind.js';
import { scheduleCompleted } from './system-task.js';

/** NOOP (Conductor's `Noop`): completes at once. */
export const noopKind: TaskKind = {
  kind: 'NOOP',
  retryable: false,
  schedule: (sctx, node, request) => scheduleCompleted(sctx, node, request),
  check: () => [],
};
