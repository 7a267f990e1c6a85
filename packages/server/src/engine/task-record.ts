import type { JsonObject, RunRecord, TaskRecord, TaskStatus, WorkflowTask } from '@baton/protocol';
import { isWorkerTask, kindNameOf } from './graph.js';

/**
 * A task record for a definition node that no worker queue carries (system kinds, and tasks
 * recorded without being run, such as a skipped one). Worker tasks build their own
 * (`kinds/worker.ts`), with queue and timeout fields.
 */
export function systemTaskRecord(
  run: RunRecord,
  workflowTask: WorkflowTask,
  fields: {
    taskId: string;
    seq: number;
    now: number;
    status: TaskStatus;
    inputData: JsonObject;
    outputData?: JsonObject;
    executed?: boolean;
  },
): TaskRecord {
  const terminal = fields.status !== 'SCHEDULED' && fields.status !== 'IN_PROGRESS';
  const task: TaskRecord = {
    taskId: fields.taskId,
    workflowInstanceId: run.workflowId,
    workflowType: run.workflowName,
    taskType: isWorkerTask(workflowTask) ? workflowTask.name : kindNameOf(workflowTask),
    taskDefName: workflowTask.name,
    referenceTaskName: workflowTask.taskReferenceName,
    status: fields.status,
    seq: fields.seq,
    retryCount: 0,
    inputData: fields.inputData,
    outputData: fields.outputData ?? {},
    pollCount: 0,
    scheduledTime: fields.now,
    startTime: fields.now,
    endTime: terminal ? fields.now : 0,
    updateTime: fields.now,
    startDelayInSeconds: 0,
    callbackAfterSeconds: 0,
    responseTimeoutSeconds: 0,
    retried: false,
    executed: fields.executed ?? false,
    workflowPriority: run.priority,
    iteration: 0,
    workflowTask,
  };
  if (run.correlationId !== undefined) task.correlationId = run.correlationId;
  return task;
}
