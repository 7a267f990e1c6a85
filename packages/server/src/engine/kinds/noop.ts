import type { TaskKind } from './kind.js';
import { resolvedInput, systemTask } from './system-task.js';

/** NOOP (Conductor's `Noop`): completes at once. */
export const noopKind: TaskKind = {
  kind: 'NOOP',
  retryable: false,
  schedule(sctx, node, request) {
    const taskId = sctx.ctx.newId();
    const task = systemTask(sctx, node, request, {
      taskId,
      status: 'COMPLETED',
      inputData: resolvedInput(sctx, node, taskId),
    });
    return { ok: true, tasks: [task], commands: [] };
  },
  check: () => [],
};
