import type { JsonObject } from './json.js';

/**
 * A message in a run's mailbox (Conductor's `WorkflowMessage`): appended by
 * `POST /api/workflow/{id}/messages` or a signal, taken by PULL_WORKFLOW_MESSAGES tasks.
 */
export interface WorkflowMessage {
  id: string;
  workflowId: string;
  payload: JsonObject;
  /** Epoch ms. */
  receivedAt: number;
}
