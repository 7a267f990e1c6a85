import type { Workflow, WorkflowStatus } from '@baton/protocol';

import type { BatonClient } from '../../src/client.js';
import { waitFor } from './baton.js';

const ENDED: ReadonlySet<WorkflowStatus> = new Set(['COMPLETED', 'FAILED', 'TERMINATED', 'TIMED_OUT']);

/** Waits (generously: the machine is shared) until the run has ended; answers it with its tasks. */
export function waitForEnd(client: BatonClient, workflowId: string, timeoutMs = 60_000): Promise<Workflow> {
  let last: Workflow | undefined;
  return waitFor(
    async () => {
      last = await client.getWorkflow(workflowId);
      return ENDED.has(last.status) ? last : undefined;
    },
    {
      timeoutMs,
      intervalMs: 50,
      what: `run ${workflowId} to end`,
      describe: () => JSON.stringify(last?.waitingFor ?? last?.status),
    },
  );
}

/** Resolves the next time `predicate` holds, checking every few ms. */
export function until(predicate: () => boolean, what: string, timeoutMs = 30_000): Promise<true> {
  return waitFor(() => (predicate() ? true : undefined), { timeoutMs, intervalMs: 5, what });
}

/** A promise with its resolve, for handlers a test releases by hand. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}
