/** Run statuses (Conductor's `Workflow.WorkflowStatus`). */
export const WORKFLOW_STATUSES = [
  'RUNNING',
  'COMPLETED',
  'FAILED',
  'TIMED_OUT',
  'TERMINATED',
  'PAUSED',
] as const;
export type WorkflowStatus = (typeof WORKFLOW_STATUSES)[number];

/** Terminal run statuses: nothing changes a run once it has one (retry/restart/rerun make new runs). */
export const TERMINAL_WORKFLOW_STATUSES: ReadonlySet<WorkflowStatus> = new Set([
  'COMPLETED',
  'FAILED',
  'TIMED_OUT',
  'TERMINATED',
]);

export function isTerminalWorkflowStatus(status: WorkflowStatus): boolean {
  return TERMINAL_WORKFLOW_STATUSES.has(status);
}

/** Task statuses (Conductor's `Task.Status`). */
export const TASK_STATUSES = [
  'SCHEDULED',
  'IN_PROGRESS',
  'COMPLETED',
  'COMPLETED_WITH_ERRORS',
  'FAILED',
  'FAILED_WITH_TERMINAL_ERROR',
  'TIMED_OUT',
  'CANCELED',
  'SKIPPED',
] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export const TERMINAL_TASK_STATUSES: ReadonlySet<TaskStatus> = new Set([
  'COMPLETED',
  'COMPLETED_WITH_ERRORS',
  'FAILED',
  'FAILED_WITH_TERMINAL_ERROR',
  'TIMED_OUT',
  'CANCELED',
  'SKIPPED',
]);
export const SUCCESSFUL_TASK_STATUSES: ReadonlySet<TaskStatus> = new Set([
  'COMPLETED',
  'COMPLETED_WITH_ERRORS',
  'SKIPPED',
]);

export function isTerminalTaskStatus(status: TaskStatus): boolean {
  return TERMINAL_TASK_STATUSES.has(status);
}
export function isSuccessfulTaskStatus(status: TaskStatus): boolean {
  return SUCCESSFUL_TASK_STATUSES.has(status);
}

/** Statuses a worker may post in a task result. */
export const TASK_RESULT_STATUSES = [
  'IN_PROGRESS',
  'COMPLETED',
  'FAILED',
  'FAILED_WITH_TERMINAL_ERROR',
] as const;
export type TaskResultStatus = (typeof TASK_RESULT_STATUSES)[number];

/** Statuses accepted in `POST /api/tasks/{workflowId}/{ref}/{status}`. */
export const EXTERNAL_COMPLETION_STATUSES = [
  'IN_PROGRESS',
  'COMPLETED',
  'FAILED',
  'FAILED_WITH_TERMINAL_ERROR',
] as const;
export type ExternalCompletionStatus = (typeof EXTERNAL_COMPLETION_STATUSES)[number];
