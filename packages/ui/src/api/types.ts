/** Wire types, from the package the server itself answers with; plus the few shapes only routes define. */
export type {
  PollData,
  QueueCounts,
  RunWaitingFor,
  SearchResult,
  StoredTaskDef,
  TaskDef,
  TaskLog,
  TaskRecord,
  TaskStatus,
  WaitingFor,
  Workflow,
  WorkflowDef,
  WorkflowStatus,
  WorkflowSummary,
  WorkflowTask,
} from '@baton/protocol';

/** `GET /api/tasks/queue/sizes`: counts per queue name. */
export type QueueSizes = Record<
  string,
  {
    waiting: number;
    scheduled: number;
    inFlight: number;
    deadLettered: number;
    activeWorkers: number;
    lastPollTime?: number;
    noActiveWorkerSince?: number;
  }
>;

/** `POST /api/workflow/bulk/{operation}`. */
export interface BulkResponse {
  bulkSuccessfulResults: string[];
  bulkErrorResults: Record<string, string>;
}

export const BULK_OPERATIONS = ['pause', 'resume', 'retry', 'restart', 'terminate'] as const;
export type BulkOperation = (typeof BULK_OPERATIONS)[number];

/** `POST /api/admin/requeue/{taskType}`. */
export interface RequeueAnswer {
  taskType: string;
  requeued: Array<{ taskId: string; newTaskId?: string; workflowId: string; [k: string]: unknown }>;
  skipped: Array<{ taskId: string; reason: string; [k: string]: unknown }>;
}
