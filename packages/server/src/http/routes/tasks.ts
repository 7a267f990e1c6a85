import type { JsonObject, QueueSizes, TaskResult } from '@baton/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

import { SYSTEM_QUEUE_PREFIX } from '../../engine/index.js';
import { fail } from '../../errors.js';
import type { AppDeps } from '../app-deps.js';
import { MAX_NAME_LENGTH } from '../../bounds/ranges.js';
import { jsonObject, millis32, name, nameParams, requiredName } from '../bounds.js';
import { externalStatusSchema, taskResultSchema } from '../schemas.js';
import { copyWith } from '../../copy-with.js';

const tags = ['tasks'];
/** Longest a batch poll may wait (the interface's limit). */
export const MAX_POLL_TIMEOUT_MS = 5000;
const MAX_POLL_COUNT = 1000;

interface PollQuery {
  workerid?: string;
  workerId?: string;
  domain?: string;
  count?: number;
  timeout?: number;
  /** The worker takes large inputs inline instead of by externalInputPayloadStoragePath. */
  inlinePayloads?: boolean;
}

interface ResultBody extends Omit<TaskResult, 'workflowInstanceId' | 'logs'> {
  workflowInstanceId?: string;
  workflowId?: string;
  logs?: Array<string | { log: string; createdTime?: number }>;
}

const pollQuerySchema = {
  type: 'object',
  properties: {
    workerid: name,
    workerId: name,
    domain: name,
    count: { type: 'integer', minimum: 1, maximum: MAX_POLL_COUNT, default: 1 },
    // Bounded as any ms value; over 5000 the handler answers Conductor's own message.
    timeout: { default: 100, ...millis32 },
    inlinePayloads: { type: 'boolean', default: false },
  },
} as const;
const typeParam = nameParams('taskType');
const taskIdParam = nameParams('taskId');

function workerOf(q: PollQuery, req: FastifyRequest): string {
  return q.workerid ?? q.workerId ?? req.ip;
}

/** The internal queues of system calls are the engine executor's: a worker polling one is refused. */
function refuseSystemQueue(taskType: string): void {
  if (!taskType.startsWith(SYSTEM_QUEUE_PREFIX)) return;
  throw fail('TASK_TYPE_RESERVED', { taskType }, [
    {
      path: 'params.taskType',
      message: `must not start with ${SYSTEM_QUEUE_PREFIX}`,
      invalidValue: taskType,
    },
  ]);
}

/** Aborts when the caller hangs up before its answer is written, so a long poll stops claiming. */
function abortOnHangUp(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}

/**
 * Whether the caller has hung up before its answer was written, for a request that never waits
 * (update-v2 looks once, after its transaction). No AbortController: on this runtime each one
 * gives its signal object a shape of its own (three new hidden classes a request), which a
 * request that only asks once does not need (docs/PERFORMANCE.md, "Fixed: objects with a shape
 * of their own on the hot path").
 */
function hangUpCheck(reply: FastifyReply): () => boolean {
  let hungUp = false;
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) hungUp = true;
  });
  return () => hungUp;
}

/** A worker result in the engine's shape (accepts the interface's `workflowId` and Conductor's name). */
function toResult(body: ResultBody): TaskResult {
  return copyWith<ResultBody, Pick<TaskResult, 'workflowInstanceId' | 'logs'>>(body, {
    workflowInstanceId: body.workflowInstanceId ?? body.workflowId ?? '',
    logs: (body.logs ?? []).map((l) => (typeof l === 'string' ? { log: l } : l)),
  });
}

/** Bare 204: no body and no content type, which Conductor's SDKs read as "nothing". */
function noContent(reply: FastifyReply): FastifyReply {
  reply.removeHeader('content-type');
  return reply.code(204).send();
}

/**
 * The task types of Conductor's `?taskType=a&taskType=b` (Spring also splits `a,b`); undefined
 * when none is named, which asks for the per-queue counts instead.
 */
function taskTypesOf(raw: string | string[] | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  const types = (Array.isArray(raw) ? raw : [raw])
    .flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter((value) => value !== '');
  if (types.length === 0) return undefined;
  const tooLong = types.find((type) => type.length > MAX_NAME_LENGTH);
  if (tooLong !== undefined) {
    const message = `must be at most ${MAX_NAME_LENGTH} characters`;
    throw fail('QUERY_PARAMETER_INVALID', { detail: `querystring.taskType ${message}` }, [
      { path: 'querystring.taskType', message, invalidValue: tooLong },
    ]);
  }
  return types;
}

/** `/api/tasks`: polling, results, logs and queue views for workers. */
export function taskRoutes(app: FastifyInstance, { tasks, payloads, workflows }: AppDeps): void {
  app.get<{ Params: { taskType: string }; Querystring: PollQuery }>(
    '/api/tasks/poll/batch/:taskType',
    {
      schema: {
        tags,
        summary: 'Take up to count tasks, waiting up to timeout ms (≤ 5000) for work; [] when none',
        params: typeParam,
        querystring: pollQuerySchema,
      },
    },
    async (req, reply) => {
      refuseSystemQueue(req.params.taskType);
      const timeout = req.query.timeout ?? 100;
      if (timeout > MAX_POLL_TIMEOUT_MS) {
        throw fail('POLL_TIMEOUT_TOO_LONG', {}, [
          { path: 'querystring.timeout', message: `must be ≤ ${MAX_POLL_TIMEOUT_MS}`, invalidValue: timeout },
        ]);
      }
      const handed = await tasks.poll({
        taskType: req.params.taskType,
        workerId: workerOf(req.query, req),
        count: req.query.count ?? 1,
        timeoutMs: timeout,
        signal: abortOnHangUp(reply),
        ...(req.query.domain !== undefined && { domain: req.query.domain }),
      });
      return payloads.forWorker(handed, req.query.inlinePayloads === true);
    },
  );

  app.get<{ Params: { taskType: string }; Querystring: PollQuery }>(
    '/api/tasks/poll/:taskType',
    {
      schema: {
        tags,
        summary: 'Take one task; bare 204 when none',
        params: typeParam,
        querystring: pollQuerySchema,
      },
    },
    async (req, reply) => {
      refuseSystemQueue(req.params.taskType);
      const [task] = await tasks.poll({
        taskType: req.params.taskType,
        workerId: workerOf(req.query, req),
        count: 1,
        timeoutMs: 0,
        signal: abortOnHangUp(reply),
        ...(req.query.domain !== undefined && { domain: req.query.domain }),
      });
      if (!task) return noContent(reply);
      const [sent] = await payloads.forWorker([task], req.query.inlinePayloads === true);
      return reply.send(sent);
    },
  );

  app.post<{ Body: ResultBody }>(
    '/api/tasks',
    { schema: { tags, summary: 'Post a task result; answers the task id as text', body: taskResultSchema } },
    async (req, reply) => {
      // RFC 7240 `Prefer: handling=strict` (Baton's SDK sends it): a late result of the holder is
      // refused with 409 like every other stale result, instead of Conductor's 200.
      const strict = /(?:^|[,;\s])handling\s*=\s*"?strict"?(?:$|[,;\s])/i.test(
        String(req.headers.prefer ?? ''),
      );
      if (strict) void reply.header('preference-applied', 'handling=strict');
      const { task, lapsed } = await tasks.update(await payloads.inlineResult(toResult(req.body)), {
        strict,
        ...(req.taskAccess && { access: req.taskAccess }),
      });
      // A late result of the attempt's own holder: 200 as Conductor answers, and the header says
      // it was not recorded (an exact repeat was recorded before, so it carries none).
      if (lapsed) void reply.header('baton-result-applied', 'false');
      return reply.code(200).type('text/plain; charset=utf-8').send(task.taskId);
    },
  );

  app.post<{ Body: ResultBody; Querystring: { inlinePayloads?: boolean } }>(
    '/api/tasks/update-v2',
    {
      schema: {
        tags,
        summary: 'Post a task result; answers the next task of the same type, or a bare 204',
        body: taskResultSchema,
        querystring: {
          type: 'object',
          properties: { inlinePayloads: { type: 'boolean', default: false } },
        },
      },
    },
    async (req, reply) => {
      const result = await payloads.inlineResult(toResult(req.body));
      const { next } = await tasks.updateAndPoll(result, req.ip, hangUpCheck(reply), req.taskAccess);
      if (!next) return noContent(reply);
      const [sent] = await payloads.forWorker([next], req.query.inlinePayloads === true);
      return reply.send(sent);
    },
  );

  app.get<{ Querystring: { taskType?: string | string[] } }>(
    '/api/tasks/queue/sizes',
    {
      schema: {
        tags,
        summary:
          "Without taskType: waiting, scheduled, in-flight and dead-lettered counts per queue, with worker liveness. With taskType (repeated, or comma-separated): Conductor's {type: waiting} for each named type",
        querystring: {
          type: 'object',
          properties: {
            taskType: {
              anyOf: [
                { type: 'string', minLength: 1, maxLength: 64 * 1024 },
                { type: 'array', maxItems: 1000, items: requiredName },
              ],
            },
          },
        },
      },
    },
    async (req) => {
      const named = taskTypesOf(req.query.taskType);
      if (named !== undefined) return tasks.waitingByType(named);
      const out: QueueSizes = {};
      for (const q of await tasks.queueCounts()) {
        out[q.queueName] = {
          waiting: q.waiting,
          scheduled: q.scheduled,
          inFlight: q.inFlight,
          deadLettered: q.deadLettered,
          // Liveness: workers that polled in the last 10 s, last poll, since when none is active.
          activeWorkers: q.activeWorkers ?? 0,
          ...(q.lastPollTime !== undefined && { lastPollTime: q.lastPollTime }),
          ...(q.noActiveWorkerSince !== undefined && { noActiveWorkerSince: q.noActiveWorkerSince }),
        };
      }
      return out;
    },
  );

  app.get(
    '/api/tasks/queue/all',
    { schema: { tags, summary: "Waiting count per queue (Conductor's shape)" } },
    async () => Object.fromEntries((await tasks.queueCounts()).map((q) => [q.queueName, q.waiting])),
  );

  app.get<{ Querystring: { taskType?: string } }>(
    '/api/tasks/queue/polldata',
    {
      schema: {
        tags,
        summary: 'Last poll time per worker of a task type; active = polled in the last 10 s',
        querystring: { type: 'object', required: ['taskType'], properties: { taskType: requiredName } },
      },
    },
    (req) => tasks.pollData(req.query.taskType),
  );

  app.get(
    '/api/tasks/queue/polldata/all',
    { schema: { tags, summary: 'Last poll time per worker, all types' } },
    () => tasks.pollData(),
  );

  app.post<{
    Params: { workflowId: string; ref: string; status: TaskResult['status'] };
    Querystring: PollQuery;
    Body: JsonObject | undefined;
  }>(
    '/api/tasks/:workflowId/:ref/:status',
    {
      schema: {
        tags,
        summary:
          'Complete (or fail) the open task with this reference name; the body is merged into its output',
        params: {
          type: 'object',
          required: ['workflowId', 'ref', 'status'],
          properties: {
            workflowId: requiredName,
            ref: requiredName,
            status: externalStatusSchema,
          },
        },
        querystring: pollQuerySchema,
        body: jsonObject,
      },
    },
    async (req, reply) => {
      const worker = req.query.workerid ?? req.query.workerId;
      const taskId = await tasks.updateByRef(
        req.params.workflowId,
        req.params.ref,
        req.params.status,
        req.body ?? {},
        worker,
        req.taskAccess,
      );
      return reply
        .code(200)
        .type('text/plain; charset=utf-8')
        .send(taskId ?? '');
    },
  );

  app.post<{
    Params: { workflowId: string; ref: string; status: TaskResult['status'] };
    Querystring: PollQuery;
    Body: JsonObject | undefined;
  }>(
    '/api/tasks/:workflowId/:ref/:status/sync',
    {
      schema: {
        tags,
        summary:
          "Conductor's updateTaskSync: as the update by reference name, answering the run (with its tasks) after the update; 404 when no task of that reference is open",
        params: {
          type: 'object',
          required: ['workflowId', 'ref', 'status'],
          properties: {
            workflowId: requiredName,
            ref: requiredName,
            status: externalStatusSchema,
          },
        },
        querystring: pollQuerySchema,
        body: jsonObject,
      },
    },
    async (req) => {
      const { workflowId, ref, status } = req.params;
      const worker = req.query.workerid ?? req.query.workerId;
      // Not a worker route (it answers the whole run, which a worker role may not read), so a
      // worker-only token is refused before this; the access check stays for any later change.
      const taskId = await tasks.updateByRef(workflowId, ref, status, req.body ?? {}, worker, req.taskAccess);
      if (taskId === undefined) throw fail('OPEN_TASK_NOT_FOUND', { ref, workflowId });
      return workflows.get(workflowId, true);
    },
  );

  app.get<{ Params: { taskId: string } }>(
    '/api/tasks/:taskId',
    { schema: { tags, summary: 'Read a task', params: taskIdParam } },
    (req) => tasks.getTask(req.params.taskId, req.taskAccess),
  );

  app.post<{ Params: { taskId: string }; Body: unknown }>(
    '/api/tasks/:taskId/log',
    { schema: { tags, summary: 'Append a log line (raw text or a JSON string)', params: taskIdParam } },
    async (req, reply) => {
      const body = req.body;
      const line =
        typeof body === 'string' ? body : body === undefined || body === null ? '' : JSON.stringify(body);
      if (line === '') {
        throw fail('TASK_LOG_EMPTY', {}, [{ path: 'body', message: 'must be a non-empty string' }]);
      }
      await tasks.appendLog(req.params.taskId, line, req.taskAccess);
      return reply.code(200).send();
    },
  );

  app.get<{ Params: { taskId: string } }>(
    '/api/tasks/:taskId/log',
    { schema: { tags, summary: "A task's log lines", params: taskIdParam } },
    async (req, reply) => {
      const logs = await tasks.logs(req.params.taskId, req.taskAccess);
      return logs.length > 0 ? reply.send(logs) : noContent(reply);
    },
  );
}
