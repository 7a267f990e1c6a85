import type { RunRecord, WorkflowMessage } from '@baton/protocol';

import { allTasks, kindNameOf, MAX_PULL_BATCH } from '../engine/index.js';
import type { Tx } from '../store/store.js';

/** Runs share this many wake-bus names, so the bus keeps a fixed number of them however many runs pass. */
const RUN_WAKE_BUCKETS = 64;

/**
 * The wake-bus name of a run: woken after every commit that changed the run, in-process and
 * through the store's notifications (other nodes), so a caller waiting for a run (sync execute)
 * is answered on commit instead of re-reading on a timer. Runs share a few names: a waiter woken
 * for another run of its bucket re-reads its own and waits again.
 */
export function runWakeName(workflowId: string): string {
  let hash = 0;
  for (let i = 0; i < workflowId.length; i++) hash = (hash * 31 + workflowId.charCodeAt(i)) | 0;
  return `run-wake-${Math.abs(hash) % RUN_WAKE_BUCKETS}`;
}

/** How many mailbox messages one decision may see: enough for several readers at full batch. */
const MAILBOX_WINDOW = MAX_PULL_BATCH * 10;

/** The run's mailbox when its definition reads it (PULL_WORKFLOW_MESSAGES); undefined otherwise. */
export async function loadMailbox(tx: Tx, run: RunRecord): Promise<WorkflowMessage[] | undefined> {
  if (!readsMailbox(run)) return undefined;
  return tx.getRunMessages(run.workflowId, MAILBOX_WINDOW);
}

export function readsMailbox(run: RunRecord): boolean {
  return allTasks(run.workflowDefinition).some((task) => kindNameOf(task) === 'PULL_WORKFLOW_MESSAGES');
}
