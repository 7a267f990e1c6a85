import type { JsonObject } from '@baton/protocol';
import type { TaskKind } from './kind.js';
import { fieldProblem, finish, requiredField, startedSystemTask } from './system-task.js';
import { copyWith } from '../../copy-with.js';

/**
 * EVENT (Conductor's `Event`): publishes its input to `sink` and completes (stays IN_PROGRESS
 * with `asyncComplete`, until completed from outside). Output = the input plus
 * `workflowInstanceId`, `workflowType`, `workflowVersion`, `correlationId`, `taskToDomain` and
 * `event_produced` (the sink), as Conductor's; that output is the message, its id the task id.
 * The interpreter only emits `PUBLISH_EVENT`; the executor writes it to the outbox in the same
 * transaction and the relay sends it after commit.
 *
 * Sinks: `baton:<queue>`, `amqp:<queue>`, `nats:<subject>`; Conductor's `conductor` and
 * `conductor:<queue>` mean the internal bus (`baton:<workflowName>:<ref>`, `baton:<workflowName>:<queue>`).
 */

const SOURCES = ['baton', 'amqp', 'nats'];

function sinkProblem(sink: string): string | undefined {
  if (sink === 'conductor' || sink.startsWith('conductor:')) return undefined;
  const colon = sink.indexOf(':');
  if (colon <= 0 || colon === sink.length - 1) return 'sink must be <source>:<queue> (baton:, amqp:, nats:)';
  const source = sink.slice(0, colon);
  return SOURCES.includes(source)
    ? undefined
    : `sink source '${source}' is not supported: use baton:, amqp: or nats:`;
}

export const eventKind: TaskKind = {
  kind: 'EVENT',
  retryable: false,
  // Ends in the decision that makes it: seen open only when something outside completes it.
  waiting: 'outside',
  schedule(sctx, node, request) {
    const { run } = sctx;
    const task = startedSystemTask(sctx, node, 'EVENT', request);
    const raw = typeof node.sink === 'string' ? node.sink : '';
    const problem = sinkProblem(raw);
    if (problem !== undefined)
      return { ok: true, tasks: [finish(task, 'FAILED', {}, problem)], commands: [] };
    const sink =
      raw === 'conductor'
        ? `baton:${run.workflowName}:${node.taskReferenceName}`
        : raw.startsWith('conductor:')
          ? `baton:${run.workflowName}:${raw.slice('conductor:'.length)}`
          : raw;
    const output: JsonObject = copyWith(task.inputData, {
      workflowInstanceId: run.workflowId,
      workflowType: run.workflowName,
      workflowVersion: run.workflowVersion,
      correlationId: run.correlationId ?? null,
      taskToDomain: { ...run.taskToDomain },
      event_produced: sink,
    });
    const status = node.asyncComplete === true ? 'IN_PROGRESS' : 'COMPLETED';
    const finished = finish(task, status, output);
    const published = status === 'IN_PROGRESS' ? copyWith(finished, { endTime: 0 }) : finished;
    return {
      ok: true,
      tasks: [published],
      commands: [{ type: 'PUBLISH_EVENT', sink, messageId: task.taskId, payload: output }],
    };
  },
  check(node, path) {
    if (typeof node.sink !== 'string' || node.sink === '') return [requiredField(path, 'sink', node)];
    const problem = sinkProblem(node.sink);
    return problem === undefined ? [] : [fieldProblem(path, 'sink', node, problem, node.sink)];
  },
};
