import type { BulkOperation } from '@baton/protocol';

/** Wire types, from the package the server itself answers with; plus what only the UI names. */
export type {
  BulkOperation,
  BulkResponse,
  EventAction,
  EventExecution,
  EventHandler,
  Instruction,
  PollData,
  QueueCounts,
  QueueSizes,
  RequeueAnswer,
  RerunRequest,
  RunWaitingFor,
  ScheduleExecution,
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
  WorkflowSchedule,
  WorkflowStatus,
  WorkflowSummary,
  WorkflowTask,
} from '@baton/protocol';

/** The bulk operations in the order the runs page offers them. */
export const BULK_ACTIONS: readonly BulkOperation[] = ['pause', 'resume', 'retry', 'restart', 'terminate'];
