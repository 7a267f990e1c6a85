import { namedFields } from './field-lists.js';
import type { JsonObject } from './json.js';

/**
 * Schedules (`/api/schedule`, Conductor's `WorkflowSchedule`): the bodies the server takes and
 * answers. The field lists under each type are checked against the type by TypeScript and
 * against the server's OpenAPI document by a test, so the three cannot drift apart.
 */

/** The run a schedule starts at each slot. */
export interface ScheduleStartRequest {
  name: string;
  version?: number;
  input?: JsonObject;
  correlationId?: string;
  taskToDomain?: Record<string, string>;
  priority?: number;
  [extra: string]: unknown;
}

/** Conductor's WorkflowSchedule: a cron expression that starts a workflow. */
export interface WorkflowSchedule {
  name: string;
  cronExpression: string;
  /** IANA zone of the cron expression; default UTC. */
  zoneId?: string;
  startWorkflowRequest: ScheduleStartRequest;
  paused?: boolean;
  pausedReason?: string;
  scheduleStartTime?: number;
  scheduleEndTime?: number;
  runCatchupScheduleInstances?: boolean;
  description?: string;
  /** Set by the server. */
  createTime?: number;
  updatedTime?: number;
  createdBy?: string;
  updatedBy?: string;
  /** The next slot, while the schedule is not paused (answers only). */
  nextRunTime?: number;
  [extra: string]: unknown;
}

/** Every named field of `ScheduleStartRequest`. */
export const SCHEDULE_START_REQUEST_FIELDS = namedFields<ScheduleStartRequest>()([
  'name',
  'version',
  'input',
  'correlationId',
  'taskToDomain',
  'priority',
]);

/** Every named field of `WorkflowSchedule`. */
export const WORKFLOW_SCHEDULE_FIELDS = namedFields<WorkflowSchedule>()([
  'name',
  'cronExpression',
  'zoneId',
  'startWorkflowRequest',
  'paused',
  'pausedReason',
  'scheduleStartTime',
  'scheduleEndTime',
  'runCatchupScheduleInstances',
  'description',
  'createTime',
  'updatedTime',
  'createdBy',
  'updatedBy',
  'nextRunTime',
]);

/** Fields of `WorkflowSchedule` the server sets: answered, not taken in a request body. */
export const WORKFLOW_SCHEDULE_ANSWER_ONLY_FIELDS = [
  'createTime',
  'updatedTime',
  'nextRunTime',
] as const satisfies readonly (typeof WORKFLOW_SCHEDULE_FIELDS)[number][];

export type ScheduleExecutionState = 'POLLED' | 'EXECUTED' | 'FAILED' | 'SKIPPED';

/** `GET /api/schedule/{name}/executions`: one slot of a schedule and what it started. */
export interface ScheduleExecution {
  executionId: string;
  scheduleName: string;
  /** The slot (epoch ms). */
  scheduledTime: number;
  executionTime: number;
  state: ScheduleExecutionState;
  /** The run started, when one was. */
  workflowId?: string;
  /** Why no run was started (FAILED, SKIPPED). */
  reason?: string;
  workflowName?: string;
  zoneId?: string;
  startWorkflowRequest?: ScheduleStartRequest;
  [extra: string]: unknown;
}
