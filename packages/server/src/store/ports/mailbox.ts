import type { WorkflowMessage } from '@baton/protocol';

import type { PortAccess } from './access.js';

/** What reaches a run from outside its decisions: its mailbox (messages and signals, taken by PULL_WORKFLOW_MESSAGES) and the keys of idempotent starts. */
export interface MailboxPort {
  // --- run mailboxes
  appendRunMessage(message: WorkflowMessage): Promise<void>;
  /** The oldest `limit` messages of a run's mailbox, oldest first. */
  getRunMessages(workflowId: string, limit: number): Promise<WorkflowMessage[]>;
  deleteRunMessages(workflowId: string, messageIds: readonly string[]): Promise<void>;

  // --- idempotent starts
  /**
   * Records that `key` of definition `name` started `workflowId`, unless the key is already
   * taken: then answers the run id it started and writes nothing. The primary key makes this
   * race-free: a concurrent claim of the same key waits for this transaction and then sees it.
   */
  claimIdempotencyKey(
    name: string,
    key: string,
    workflowId: string,
    now: number,
  ): Promise<string | undefined>;
}

/** Which `MailboxPort` methods write (refused inside `read()`); every method is checked (tx-access.ts). */
export const MAILBOX_ACCESS = {
  appendRunMessage: 'write',
  getRunMessages: 'read',
  deleteRunMessages: 'write',
  claimIdempotencyKey: 'write',
} as const satisfies PortAccess<MailboxPort>;
