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
  TaskSummary,
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

/** `/api/schedule`: Conductor's WorkflowSchedule, with the next slot while it is not paused. */
export interface WorkflowSchedule {
  name: string;
  cronExpression: string;
  zoneId?: string;
  startWorkflowRequest: {
    name: string;
    version?: number;
    input?: Record<string, unknown>;
    correlationId?: string;
    priority?: number;
    [extra: string]: unknown;
  };
  paused?: boolean;
  pausedReason?: string;
  scheduleStartTime?: number;
  scheduleEndTime?: number;
  runCatchupScheduleInstances?: boolean;
  description?: string;
  createTime?: number;
  updatedTime?: number;
  nextRunTime?: number;
  [extra: string]: unknown;
}

/** `GET /api/schedule/{name}/executions`: one slot of a schedule. */
export interface ScheduleExecution {
  executionId: string;
  scheduleName: string;
  scheduledTime: number;
  executionTime?: number;
  state: string;
  workflowId?: string;
  reason?: string;
}

/** `/api/event`: Conductor's EventHandler. */
export interface EventHandler {
  name: string;
  event: string;
  condition?: string;
  evaluatorType?: string;
  actions: Array<{ action: string; [params: string]: unknown }>;
  active?: boolean;
  description?: string;
  [extra: string]: unknown;
}

/** `GET /api/event/executions`: what a handler did with one message. */
export interface EventExecution {
  id: string;
  messageId: string;
  name: string;
  event: string;
  created: number;
  status: string;
  action: string;
  output?: Record<string, unknown>;
}

/** `/api/metadata/instructions`: one version of an instruction text. */
export interface Instruction {
  name: string;
  version: number;
  text: string;
  contentType: string;
  createTime: number;
}
