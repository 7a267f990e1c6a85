import type { WorkflowDef } from './definitions.js';
import type { JsonObject } from './json.js';

/** Bodies of the run routes beyond a start (`StartWorkflowRequest`): test runs, reruns, skips. */

/** One mocked attempt of a task in a test run (Conductor's `TaskMock`). */
export interface TaskMock {
  status?: 'COMPLETED' | 'FAILED' | 'FAILED_WITH_TERMINAL_ERROR';
  output?: JsonObject;
  reasonForIncompletion?: string;
  /** Virtual milliseconds the attempt takes. */
  executionTime?: number;
  /** Virtual milliseconds the attempt waits in its queue before it starts. */
  queueWaitTime?: number;
}

/** `POST /api/workflow/test`: a run on mocked workers, nothing stored (Conductor's test run). */
export interface TestRunRequest {
  /** The definition to run; when absent, the registered one named by `name` (and `version`), as in Conductor. */
  workflowDef?: WorkflowDef;
  name?: string;
  version?: number;
  input?: JsonObject;
  correlationId?: string;
  priority?: number;
  taskToDomain?: Record<string, string>;
  /** Mocked attempts per task reference, used in order: one per attempt. */
  taskRefToMockOutput?: Record<string, TaskMock[]>;
}

/** `POST /api/workflow/{workflowId}/rerun`: run again from one task (or from the start). */
export interface RerunRequest {
  reRunFromTaskRefName?: string;
  /** Conductor's way of naming the task: its id (a task of the run being rerun). */
  reRunFromTaskId?: string;
  taskInput?: JsonObject;
  workflowInput?: JsonObject;
}

/** `PUT /api/workflow/{workflowId}/skiptask/{ref}`: the skipped task's input and output. */
export interface SkipRequest {
  taskInput?: JsonObject;
  taskOutput?: JsonObject;
}
