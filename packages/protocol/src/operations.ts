import type { QueueCounts } from './records.js';
import type { WorkflowStatus } from './statuses.js';

/**
 * Answers of the operator and bulk routes, declared once for the server that answers them and
 * the SDK, CLI and UI that read them.
 */

/** A bulk operation's answer (`POST /api/workflow/bulk/{operation}`, definitions, schedules). */
export interface BulkResponse {
  bulkSuccessfulResults: string[];
  /** id (or name) → why it failed. */
  bulkErrorResults: Record<string, string>;
  /** Retry and restart make new runs: old run id → new run id. */
  linkedRuns?: Record<string, string>;
}

/** `POST /api/admin/requeue/{taskType}`: dead letters reopened, and those left where they are. */
export interface RequeueAnswer {
  taskType: string;
  /** Dead letters reopened as a new attempt in their run. */
  requeued: Array<{
    workflowId: string;
    taskId: string;
    newTaskId: string;
    taskRef: string;
    /** True when the run had failed because of this task and is RUNNING again. */
    runReopened: boolean;
  }>;
  /** Dead letters left where they are, and why. */
  skipped: Array<{ workflowId: string; taskId: string; reason: string }>;
}

/** `POST /api/admin/repair/{workflowId}`: a run's open worker tasks given their queue messages back. */
export interface RepairAnswer {
  workflowId: string;
  status: WorkflowStatus;
  /** Open worker tasks whose message was missing or dead-lettered, now queued again. */
  requeued: Array<{
    taskId: string;
    taskRef: string;
    queueName: string;
    reason: 'missing' | 'dead-lettered';
  }>;
  /** Open worker tasks whose message was fine (left alone). */
  unchanged: string[];
}

/** `GET /api/tasks/queue/sizes`: counts and liveness per queue name. */
export type QueueSizes = Record<string, Omit<QueueCounts, 'queueName'> & { activeWorkers: number }>;

/** `/api/metadata/instructions`: one version of an instruction text. */
export interface Instruction {
  name: string;
  version: number;
  text: string;
  contentType: string;
  createTime: number;
}

/** The operations of `POST /api/workflow/bulk/{operation}`. */
export const BULK_OPERATIONS = ['pause', 'resume', 'restart', 'retry', 'terminate'] as const;
export type BulkOperation = (typeof BULK_OPERATIONS)[number];
