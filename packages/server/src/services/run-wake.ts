import type { RunRecord, WorkflowMessage } from '@baton/protocol';

import { allTasks, kindNameOf } from '../engine/graph.js';
import { MAX_PULL_BATCH } from '../engine/kinds/pull-workflow-messages.js';
import type { Tx } from '../store/store.js';

/**
 * The wake-bus name of a run: woken after every commit that changed the run (in-process), and
 * through the store's notifications when the run ends (every node), so a caller waiting for a
 * run (sync execute) is answered on commit instead of re-reading on a timer.
 */
export function runWakeName(workflowId: string): string {
  return `run:${workflowId}`;
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
