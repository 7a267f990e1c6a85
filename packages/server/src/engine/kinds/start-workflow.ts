import type { JsonObject, WorkflowDef } from '@baton/protocol';
import type { Command } from '../types.js';
import type { TaskKind } from './kind.js';
import { finish, startedSystemTask } from './system-task.js';
import { copyWith } from '../../copy-with.js';

/**
 * START_WORKFLOW (Conductor's `StartWorkflow`): starts the run described by
 * `inputParameters.startWorkflow` (a start request: `name`, `version`, `input`,
 * `correlationId`, `taskToDomain`, `priority`, or an inline `workflowDef`) and does not wait
 * for it. The run inherits this run's correlationId and taskToDomain when the request has
 * none. The executor starts it in the same transaction (`START_WORKFLOW`) and then completes
 * the task with output `{workflowId}`, or fails it when the definition cannot be found.
 */
export const startWorkflowKind: TaskKind = {
  kind: 'START_WORKFLOW',
  retryable: false,
  // Ends in the decision that makes it: seen open only when something outside completes it.
  waiting: 'outside',
  schedule(sctx, workflowTask, request) {
    const { ctx, run } = sctx;
    const task = startedSystemTask(sctx, workflowTask, 'START_WORKFLOW', request);
    const start = task.inputData.startWorkflow;
    if (start === undefined || start === null) {
      const reason = "Missing 'startWorkflow' in input data.";
      return { ok: true, tasks: [finish(task, 'FAILED', {}, reason)], commands: [] };
    }
    const problems = validate(start);
    if (problems.length > 0) {
      const reason = `startWorkflow validation failed. ${problems.map(([path, message]) => `'${path}' -> ${message}. `).join('')}`;
      return { ok: true, tasks: [finish(task, 'FAILED', {}, reason)], commands: [] };
    }
    const req = start as JsonObject;
    const definition = req.workflowDef as unknown as WorkflowDef | undefined;
    const name = typeof req.name === 'string' && req.name !== '' ? req.name : (definition?.name ?? '');
    const workflowId = ctx.newId();
    const correlationId = typeof req.correlationId === 'string' ? req.correlationId : run.correlationId;
    const command: Command = {
      type: 'START_WORKFLOW',
      taskId: task.taskId,
      workflowId,
      name,
      ...(typeof req.version === 'number' && req.version > 0 && { version: req.version }),
      // Taken from the task's resolved input, so data may have written any of it.
      ...(definition !== undefined && { definition, definitionFromData: true as const }),
      input: (req.input as JsonObject | undefined) ?? {},
      ...(correlationId !== undefined && { correlationId }),
      taskToDomain: (req.taskToDomain as Record<string, string> | undefined) ?? { ...run.taskToDomain },
      priority: typeof req.priority === 'number' ? req.priority : 0,
    };
    return { ok: true, tasks: [copyWith(task, { status: 'IN_PROGRESS' })], commands: [command] };
  },
  check: () => [],
};

/** Conductor's StartWorkflowRequest constraints, as `[path, message]`. */
function validate(start: unknown): [string, string][] {
  if (typeof start !== 'object' || start === null || Array.isArray(start)) {
    return [['startWorkflow', 'must be a start request object']];
  }
  const req = start as Record<string, unknown>;
  const problems: [string, string][] = [];
  const def = req.workflowDef;
  const hasDef = typeof def === 'object' && def !== null && Array.isArray((def as { tasks?: unknown }).tasks);
  if (!hasDef && (typeof req.name !== 'string' || req.name.trim() === '')) {
    problems.push(['name', 'Workflow name cannot be null or empty']);
  }
  if (
    req.version !== undefined &&
    req.version !== null &&
    !(typeof req.version === 'number' && Number.isInteger(req.version))
  ) {
    problems.push(['version', 'must be an integer']);
  }
  if (
    req.input !== undefined &&
    (typeof req.input !== 'object' || req.input === null || Array.isArray(req.input))
  ) {
    problems.push(['input', 'must be an object']);
  }
  if (
    req.priority !== undefined &&
    !(
      typeof req.priority === 'number' &&
      Number.isInteger(req.priority) &&
      req.priority >= 0 &&
      req.priority <= 99
    )
  ) {
    problems.push([
      'priority',
      `priority: ${JSON.stringify(req.priority)} should be minimum 0 and maximum 99`,
    ]);
  }
  if (
    req.taskToDomain !== undefined &&
    (typeof req.taskToDomain !== 'object' ||
      req.taskToDomain === null ||
      Array.isArray(req.taskToDomain) ||
      !Object.values(req.taskToDomain).every((v) => typeof v === 'string'))
  ) {
    problems.push(['taskToDomain', 'must be a map of strings']);
  }
  return problems;
}
