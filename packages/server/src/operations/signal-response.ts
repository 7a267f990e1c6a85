import { randomUUID } from 'node:crypto';

import {
  isTerminalTaskStatus,
  type JsonObject,
  type TaskRecord,
  type Workflow,
  type WorkflowStatus,
} from '@baton/protocol';

import { kindNameOf } from '../engine/index.js';
import { MAX_NESTING } from '../decisions/linked-runs.js';
import type { WorkflowService } from './workflow-service.js';
import { copyWith } from '../copy-with.js';

/** Orkes's `returnStrategy` of a synchronous signal: what the answer describes. */
export const RETURN_STRATEGIES = [
  'TARGET_WORKFLOW',
  'BLOCKING_WORKFLOW',
  'BLOCKING_TASK',
  'BLOCKING_TASK_INPUT',
] as const;
export type ReturnStrategy = (typeof RETURN_STRATEGIES)[number];

/** Orkes's `SignalResponse`: a `WorkflowRun` or a `TaskRun`, with `responseType` saying which. */
export interface SignalResponse {
  responseType: ReturnStrategy;
  requestId: string;
  targetWorkflowId: string;
  targetWorkflowStatus: WorkflowStatus;
  workflowId: string;
  correlationId?: string;
  input: JsonObject;
  output: JsonObject;
  status: string;
  createTime: number;
  updateTime: number;
  // WorkflowRun
  priority?: number;
  variables?: JsonObject;
  tasks?: TaskRecord[];
  // TaskRun
  taskId?: string;
  taskType?: string;
  taskDefName?: string;
  referenceTaskName?: string;
  retryCount?: number;
  retriedTaskId?: string;
  workflowType?: string;
  reasonForIncompletion?: string;
}

/**
 * The answer of `POST /api/tasks/{workflowId}/{status}/signal/sync` once the signal has been
 * applied. Baton runs system tasks in the decision that the signal caused, so when the signal
 * has committed the run already stands at its next blocking point: the first open task of the
 * run, or, when that is a SUB_WORKFLOW, the first open task of its running child (depth first).
 * With nothing open, the answer is the target run whatever the strategy.
 */
export class SignalResponder {
  constructor(private readonly workflows: WorkflowService) {}

  async respond(workflowId: string, strategy: ReturnStrategy): Promise<SignalResponse> {
    const target = await this.workflows.get(workflowId, true);
    const base = {
      requestId: randomUUID(),
      targetWorkflowId: target.workflowId,
      targetWorkflowStatus: target.status,
    };
    if (strategy === 'TARGET_WORKFLOW')
      return copyWith(base, copyWith(workflowRun(target), { responseType: 'TARGET_WORKFLOW' }));
    const blocking = await this.blockingPoint(target, 0);
    if (!blocking) return copyWith(base, copyWith(workflowRun(target), { responseType: 'TARGET_WORKFLOW' }));
    if (strategy === 'BLOCKING_WORKFLOW')
      return copyWith(base, copyWith(workflowRun(blocking.run), { responseType: strategy }));
    return copyWith(base, copyWith(taskRun(blocking.run, blocking.task), { responseType: strategy }));
  }

  private async blockingPoint(
    run: Workflow,
    depth: number,
  ): Promise<{ run: Workflow; task: TaskRecord } | undefined> {
    const open = run.tasks.filter((t) => !isTerminalTaskStatus(t.status)).sort((a, b) => a.seq - b.seq);
    for (const task of open) {
      if (
        kindNameOf(task.workflowTask) === 'SUB_WORKFLOW' &&
        task.subWorkflowId !== undefined &&
        depth < MAX_NESTING
      ) {
        const child = await this.workflows.get(task.subWorkflowId, true);
        const inner = await this.blockingPoint(child, depth + 1);
        if (inner) return inner;
      }
      return { run, task };
    }
    return undefined;
  }
}

function workflowRun(
  run: Workflow,
): Omit<SignalResponse, 'responseType' | 'requestId' | 'targetWorkflowId' | 'targetWorkflowStatus'> {
  return {
    workflowId: run.workflowId,
    input: run.input,
    output: run.output,
    status: run.status,
    createTime: run.createTime,
    updateTime: run.updateTime,
    priority: run.priority,
    variables: run.variables,
    tasks: run.tasks,
    ...(run.correlationId !== undefined && { correlationId: run.correlationId }),
  };
}

function taskRun(
  run: Workflow,
  task: TaskRecord,
): Omit<SignalResponse, 'responseType' | 'requestId' | 'targetWorkflowId' | 'targetWorkflowStatus'> {
  return {
    workflowId: run.workflowId,
    input: task.inputData,
    output: task.outputData,
    status: task.status,
    createTime: task.scheduledTime,
    updateTime: task.updateTime,
    taskId: task.taskId,
    taskType: task.taskType,
    taskDefName: task.taskDefName,
    referenceTaskName: task.referenceTaskName,
    retryCount: task.retryCount,
    workflowType: task.workflowType,
    ...(task.retriedTaskId !== undefined && { retriedTaskId: task.retriedTaskId }),
    ...(task.reasonForIncompletion !== undefined && { reasonForIncompletion: task.reasonForIncompletion }),
    ...(run.correlationId !== undefined && { correlationId: run.correlationId }),
  };
}
