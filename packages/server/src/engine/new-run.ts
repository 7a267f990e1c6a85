import type { JsonObject, RunRecord } from '@baton/protocol';
import type { NewRunInput } from './types.js';

/**
 * A new run record, RUNNING, before its first decide. The start input gets the definition's
 * `inputTemplate` keys it lacks (Conductor's `putIfAbsent`); variables start as the
 * definition's. The definition is kept on the run: a run never changes version under its feet.
 */
export function newRunRecord(input: NewRunInput): RunRecord {
  const def = input.definition;
  const runInput: JsonObject = structuredClone(input.input);
  for (const [key, value] of Object.entries(def.inputTemplate ?? {})) {
    if (!Object.hasOwn(runInput, key)) runInput[key] = structuredClone(value);
  }
  const run: RunRecord = {
    workflowId: input.workflowId,
    workflowName: def.name,
    workflowVersion: def.version ?? 1,
    status: 'RUNNING',
    input: runInput,
    output: {},
    variables: structuredClone(def.variables ?? {}),
    priority: input.priority,
    taskToDomain: { ...input.taskToDomain },
    failedReferenceTaskNames: [],
    failedTaskNames: [],
    createTime: input.now,
    updateTime: input.now,
    endTime: 0,
    links: {},
    workflowDefinition: def,
  };
  if (input.correlationId !== undefined) run.correlationId = input.correlationId;
  if (input.idempotencyKey !== undefined) run.idempotencyKey = input.idempotencyKey;
  if (input.parentWorkflowId !== undefined) run.parentWorkflowId = input.parentWorkflowId;
  if (input.parentWorkflowTaskId !== undefined) run.parentWorkflowTaskId = input.parentWorkflowTaskId;
  if (input.queueSince !== undefined) run.queueSince = input.queueSince;
  if (input.event !== undefined) run.event = input.event;
  if (input.syncWaitUntil !== undefined) run.syncWaitUntil = input.syncWaitUntil;
  if (input.definitionFromData === true) run.definitionFromData = true;
  return run;
}
