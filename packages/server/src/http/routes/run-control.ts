import {
  BULK_OPERATIONS,
  type BulkOperation,
  type JsonObject,
  type RerunRequest,
  type SkipRequest,
  type StartWorkflowRequest,
  type TestRunRequest,
} from '@baton/protocol';
import type { FastifyInstance, FastifyReply } from 'fastify';

import { MAX_BULK_IDS } from '../../operations/run-control-service.js';
import type { AppDeps } from '../app-deps.js';
import {
  jsonObject,
  millis32,
  name,
  nameParams,
  priority,
  requiredName,
  stringMap,
  text,
  version,
  versionOrLatest,
} from '../bounds.js';
import { startRequestSchema, workflowDefSchema } from '../schemas.js';
import { refuseUnknownStartFields } from '../start-request-form.js';
import { copyWith } from '../../copy-with.js';

const tags = ['workflow'];
const idParam = nameParams('workflowId');
const reasonQuery = { type: 'object', properties: { reason: text } } as const;
const SIGNAL_STATUSES = ['COMPLETED', 'FAILED', 'FAILED_WITH_TERMINAL_ERROR'] as const;
/** Longest a synchronous execution may wait for its run. */
const MAX_EXECUTE_WAIT_SECONDS = 300;

/**
 * The answer of retry, restart and rerun: the new run's id, as the contract says, with a header
 * telling a Conductor user why it is not the run they acted on.
 */
function sendNewRun(
  reply: FastifyReply,
  operation: 'retry' | 'restart' | 'rerun',
  original: string,
  successor: string,
): FastifyReply {
  reply.header(
    'X-Baton-Linked-Run',
    `${successor} is a new run (${operation}_of ${original}): Baton does not continue a run in place as Conductor does`,
  );
  return sendText(reply, successor);
}

function sendText(reply: FastifyReply, text: string): FastifyReply {
  return reply.code(200).type('text/plain; charset=utf-8').send(text);
}

/**
 * Run control: pause, resume, terminate, retry, restart, rerun, skip, messages and signals,
 * test runs, bulk operations and synchronous execution (docs/design/runs.md).
 */
export function runControlRoutes(app: FastifyInstance, { runControl, testRuns, syncExecute }: AppDeps): void {
  app.put<{ Params: { workflowId: string } }>(
    '/api/workflow/:workflowId/pause',
    {
      schema: {
        tags,
        summary: 'Pause a RUNNING run: nothing new is scheduled (409 otherwise)',
        params: idParam,
      },
    },
    async (req, reply) => {
      await runControl.pause(req.params.workflowId);
      return reply.code(200).send();
    },
  );

  app.put<{ Params: { workflowId: string } }>(
    '/api/workflow/:workflowId/resume',
    {
      schema: { tags, summary: 'Resume a PAUSED run; it moves on at once (409 otherwise)', params: idParam },
    },
    async (req, reply) => {
      await runControl.resume(req.params.workflowId);
      return reply.code(200).send();
    },
  );

  const terminate = {
    schema: {
      tags,
      summary: 'Terminate a RUNNING or PAUSED run: open tasks CANCELED, messages removed (409 once ended)',
      params: idParam,
      querystring: reasonQuery,
    },
  };
  const terminateHandler = async (
    req: { params: { workflowId: string }; query: { reason?: string } },
    reply: FastifyReply,
  ): Promise<FastifyReply> => {
    await runControl.terminate(req.params.workflowId, req.query.reason);
    return reply.code(200).send();
  };
  app.delete<{ Params: { workflowId: string }; Querystring: { reason?: string } }>(
    '/api/workflow/:workflowId',
    terminate,
    terminateHandler,
  );
  app.post<{ Params: { workflowId: string }; Querystring: { reason?: string } }>(
    '/api/workflow/:workflowId/terminate',
    terminate,
    terminateHandler,
  );

  app.post<{ Params: { workflowId: string } }>(
    '/api/workflow/:workflowId/retry',
    {
      schema: {
        tags,
        summary:
          'Retry a FAILED, TIMED_OUT or TERMINATED run: a new run (retry_of) reusing completed tasks; answers its id as text',
        params: idParam,
      },
    },
    async (req, reply) =>
      sendNewRun(reply, 'retry', req.params.workflowId, await runControl.retry(req.params.workflowId)),
  );

  app.post<{ Params: { workflowId: string }; Querystring: { useLatestDefinitions?: boolean } }>(
    '/api/workflow/:workflowId/restart',
    {
      schema: {
        tags,
        summary: 'Restart an ended run: a new run (restart_of) with the same input; answers its id as text',
        params: idParam,
        querystring: {
          type: 'object',
          properties: { useLatestDefinitions: { type: 'boolean', default: false } },
        },
      },
    },
    async (req, reply) =>
      sendNewRun(
        reply,
        'restart',
        req.params.workflowId,
        await runControl.restart(req.params.workflowId, req.query.useLatestDefinitions ?? false),
      ),
  );

  app.post<{ Params: { workflowId: string }; Body: RerunRequest | undefined }>(
    '/api/workflow/:workflowId/rerun',
    {
      schema: {
        tags,
        summary: 'Rerun an ended run from a task: a new run (rerun_of); answers its id as text',
        params: idParam,
        body: {
          type: 'object',
          additionalProperties: true,
          properties: {
            reRunFromTaskRefName: requiredName,
            reRunFromTaskId: requiredName,
            taskInput: jsonObject,
            workflowInput: jsonObject,
          },
        },
      },
    },
    async (req, reply) =>
      sendNewRun(
        reply,
        'rerun',
        req.params.workflowId,
        await runControl.rerun(req.params.workflowId, req.body ?? {}),
      ),
  );

  app.put<{ Params: { workflowId: string; ref: string }; Body: SkipRequest | undefined }>(
    '/api/workflow/:workflowId/skiptask/:ref',
    {
      schema: {
        tags,
        summary: 'Skip a waiting (or not yet reached) task with the given output; the run continues',
        params: nameParams('workflowId', 'ref'),
        body: {
          type: 'object',
          additionalProperties: true,
          properties: { taskInput: jsonObject, taskOutput: jsonObject },
        },
      },
      // Conductor's skip request is optional (its clients send none): no body is an empty one.
      preValidation: (req, _reply, done) => {
        if (req.body === undefined) req.body = {};
        done();
      },
    },
    async (req, reply) => {
      await runControl.skip(req.params.workflowId, req.params.ref, req.body ?? {});
      return reply.code(200).send();
    },
  );

  app.post<{ Params: { workflowId: string }; Body: JsonObject | undefined }>(
    '/api/workflow/:workflowId/messages',
    {
      schema: {
        tags,
        summary: "Append a message to the run's mailbox; answers the message id as text (409 once ended)",
        params: idParam,
        body: jsonObject,
      },
    },
    async (req, reply) =>
      sendText(reply, await runControl.sendMessage(req.params.workflowId, req.body ?? {})),
  );

  app.post<{ Params: { workflowId: string }; Body: JsonObject | undefined }>(
    '/api/workflow/:workflowId/signal',
    {
      schema: {
        tags,
        summary:
          'Append a message and wake the run: the first blocked WAIT, HUMAN or PULL_WORKFLOW_MESSAGES task completes with it (or, when none is, one in a running child run); answers {messageId, taskId, workflowId}',
        params: idParam,
        body: jsonObject,
      },
    },
    (req) => runControl.signal(req.params.workflowId, req.body ?? {}),
  );

  app.post<{
    Params: { workflowId: string; status: (typeof SIGNAL_STATUSES)[number] };
    Body: JsonObject | undefined;
  }>(
    '/api/tasks/:workflowId/:status/signal',
    {
      schema: {
        tags: ['tasks'],
        summary:
          "Conductor's task signal: the first blocked task of the run ends with this status and output",
        params: {
          type: 'object',
          required: ['workflowId', 'status'],
          properties: { workflowId: requiredName, status: { type: 'string', enum: SIGNAL_STATUSES } },
        },
        body: jsonObject,
      },
    },
    (req) => runControl.signal(req.params.workflowId, req.body ?? {}, req.params.status, false),
  );

  app.post<{ Body: TestRunRequest }>(
    '/api/workflow/test',
    {
      schema: {
        tags,
        summary:
          'Test run: the interpreter on a throwaway store and a virtual clock, with mocked task results; answers the run with its tasks. Runs workflowDef, or when it is absent the registered definition named by name (and version), as Conductor does',
        body: {
          type: 'object',
          additionalProperties: true,
          properties: {
            workflowDef: workflowDefSchema,
            name: requiredName,
            version,
            input: jsonObject,
            correlationId: text,
            priority,
            taskToDomain: stringMap,
            taskRefToMockOutput: {
              type: 'object',
              additionalProperties: {
                type: 'array',
                items: {
                  type: 'object',
                  additionalProperties: true,
                  properties: {
                    status: { type: 'string', enum: SIGNAL_STATUSES },
                    output: jsonObject,
                    reasonForIncompletion: text,
                    executionTime: millis32,
                    queueWaitTime: millis32,
                  },
                },
              },
            },
          },
        },
      },
    },
    (req) => testRuns.run(req.body),
  );

  for (const method of ['PUT', 'POST'] as const) {
    app.route<{
      Params: { operation: BulkOperation };
      Body: string[];
      Querystring: { reason?: string; useLatestDefinitions?: boolean };
    }>({
      method,
      url: '/api/workflow/bulk/:operation',
      schema: {
        tags,
        summary: `The same operation over up to ${MAX_BULK_IDS} runs; answers {bulkSuccessfulResults, bulkErrorResults}, and for retry and restart linkedRuns {id: new run id} (new linked runs, where Conductor continues each run in place)`,
        params: {
          type: 'object',
          required: ['operation'],
          properties: { operation: { type: 'string', enum: BULK_OPERATIONS } },
        },
        querystring: {
          type: 'object',
          properties: {
            reason: text,
            useLatestDefinitions: { type: 'boolean', default: false },
          },
        },
        body: { type: 'array', items: requiredName, maxItems: MAX_BULK_IDS },
      },
      handler: (req) =>
        runControl.bulk(req.params.operation, req.body, {
          useLatestDefinitions: req.query.useLatestDefinitions ?? false,
          ...(req.query.reason !== undefined && { reason: req.query.reason }),
        }),
    });
  }

  app.post<{
    Params: { name: string; version: number };
    Querystring: { waitForSeconds?: number; waitUntilTaskRef?: string; requestId?: string };
    Body: Omit<StartWorkflowRequest, 'name'> | undefined;
  }>(
    '/api/workflow/execute/:name/:version',
    {
      schema: {
        tags,
        summary:
          'Start a run and answer it once it ends or blocks, or when waitForSeconds runs out (version 0 = latest)',
        params: {
          type: 'object',
          required: ['name', 'version'],
          properties: { name: requiredName, version: versionOrLatest },
        },
        querystring: {
          type: 'object',
          properties: {
            waitForSeconds: { type: 'integer', minimum: 0, maximum: MAX_EXECUTE_WAIT_SECONDS, default: 10 },
            waitUntilTaskRef: text,
            requestId: name,
          },
        },
        body: startRequestSchema,
      },
    },
    (req) => {
      refuseUnknownStartFields(req.body ?? {});
      const request: StartWorkflowRequest = copyWith(req.body ?? {}, { name: req.params.name });
      if (req.params.version > 0) request.version = req.params.version;
      else delete request.version;
      return syncExecute.execute(request, {
        waitForSeconds: req.query.waitForSeconds ?? 10,
        waitUntilTaskRef: (req.query.waitUntilTaskRef ?? '')
          .split(',')
          .map((ref) => ref.trim())
          .filter((ref) => ref !== ''),
        ...(req.query.requestId !== undefined && { requestId: req.query.requestId }),
      });
    },
  );
}
