import {
  WORKFLOW_STATUSES,
  type JsonObject,
  type StartWorkflowRequest,
  type WorkflowStatus,
} from '@baton/protocol';
import type { FastifyInstance, FastifyReply } from 'fastify';

import { fail } from '../../errors.js';
import { parseTime } from '../../operations/workflow-service.js';
import { RUN_SORT_FIELDS, type RunQuery } from '../../store/store.js';
import type { AppDeps } from '../app-deps.js';
import { name, nameParams, pageSize, pageStart, priority, requiredName, text, version } from '../bounds.js';
import { correlatedQuery, inlineStartRequestSchema, startRequestSchema } from '../schemas.js';
import { refuseUnknownStartFields, startRequestFromBody, type StartQuery } from '../start-request-form.js';
import { filterFromQuery } from '../../search/query-filter.js';
import { MAX_QUERY_LENGTH } from '../../search/query-parser.js';
import { RUN_FIELDS } from '../../search/search-fields.js';
import { parseSortParam } from '../../search/sort-param.js';

const tags = ['workflow'];
const idParam = nameParams('workflowId');

function sendText(reply: FastifyReply, text: string): FastifyReply {
  return reply.code(200).type('text/plain; charset=utf-8').send(text);
}

interface SearchQuery {
  name?: string;
  workflowType?: string;
  status?: string;
  correlationId?: string;
  from?: string;
  to?: string;
  freeText?: string;
  /** Conductor's query expression: `workflowType IN (a,b) AND status IN (RUNNING)`. */
  query?: string;
  start?: number;
  size?: number;
  sort?: string | string[];
}

/** Turns search query parameters into a store query, refusing what it cannot honour. */
export function toRunQuery(q: SearchQuery): RunQuery {
  const statuses: WorkflowStatus[] = [];
  for (const raw of (q.status ?? '')
    .split(',')
    .map((s) => s.trim().toUpperCase())
    .filter(Boolean)) {
    const status = WORKFLOW_STATUSES.find((s) => s === raw);
    if (!status) {
      throw fail('STATUS_UNKNOWN', { statuses: WORKFLOW_STATUSES.join(', ') }, [
        { path: 'querystring.status', message: 'unknown status', invalidValue: raw },
      ]);
    }
    statuses.push(status);
  }
  const sort = parseSortParam(q.sort, RUN_SORT_FIELDS);
  const query: RunQuery = {
    start: q.start ?? 0,
    size: q.size ?? 100,
    sort: sort.length > 0 ? sort : [{ field: 'createTime', order: 'DESC' }],
  };
  const name = q.name ?? q.workflowType;
  if (name) query.name = name;
  if (statuses.length > 0) query.status = statuses;
  if (q.correlationId) query.correlationId = q.correlationId;
  const from = parseTime(q.from, 'from');
  const to = parseTime(q.to, 'to');
  if (from !== undefined) query.from = from;
  if (to !== undefined) query.to = to;
  if (q.freeText && q.freeText !== '*') query.freeText = q.freeText;
  if (q.query !== undefined && q.query.trim() !== '' && q.query.trim() !== '*')
    query.filter = filterFromQuery(q.query, RUN_FIELDS);
  return query;
}

/** `/api/workflow`: start, read and search runs. */
export function workflowRoutes(app: FastifyInstance, { workflows, payloads, metadata }: AppDeps): void {
  app.post<{ Body: StartWorkflowRequest }>(
    '/api/workflow',
    {
      schema: {
        tags,
        summary:
          "Start a run (Conductor's StartWorkflowRequest, with name; other top-level keys are refused naming them); answers the run id as text",
        description:
          "With workflowDef (Conductor's inline definition), the run follows that definition, checked as registration checks one (400 naming body.workflowDef.<field>) and not registered; its name must be the start request's name.",
        body: inlineStartRequestSchema,
      },
    },
    async (req, reply) => {
      refuseUnknownStartFields(req.body, true);
      const inline = req.body.workflowDef;
      if (inline !== undefined) {
        if (inline.name !== req.body.name) {
          const message = `workflowDef.name ${JSON.stringify(inline.name)} differs from the start request's name ${JSON.stringify(req.body.name)}`;
          throw fail(
            'INLINE_DEFINITION_NAME_MISMATCH',
            { inlineName: JSON.stringify(inline.name), name: JSON.stringify(req.body.name) },
            [{ path: 'body.workflowDef.name', message, invalidValue: inline.name }],
          );
        }
        await metadata.checkInlineWorkflow(inline);
      }
      return sendText(reply, await workflows.start(await payloads.inlineStart(req.body)));
    },
  );

  app.post<{
    Params: { name: string };
    Body: JsonObject | undefined;
    Querystring: StartQuery;
  }>(
    '/api/workflow/:name',
    {
      schema: {
        tags,
        summary: 'Start a run of the named definition; answers the run id as text',
        description:
          "The body is the start request ({version, input, correlationId, priority, taskToDomain, idempotencyKey, idempotencyStrategy}) or, as in Conductor, the bare input map: a body with none of the start request's fields. A start request with any other top-level key is refused naming it. The query parameters version, correlationId and priority apply to both forms (refused when the body gives a different value).",
        params: nameParams('name'),
        querystring: { type: 'object', properties: { version, correlationId: text, priority } },
        body: startRequestSchema,
      },
    },
    async (req, reply) => {
      const request = startRequestFromBody(req.params.name, req.body, req.query);
      return sendText(reply, await workflows.start(await payloads.inlineStart(request)));
    },
  );

  app.get<{ Querystring: SearchQuery }>(
    '/api/workflow/search',
    {
      schema: {
        tags,
        summary: 'Search runs; answers {totalHits, results}',
        querystring: {
          type: 'object',
          properties: {
            name,
            workflowType: name,
            status: { type: 'string', maxLength: 1024 },
            correlationId: text,
            from: { type: 'string', maxLength: 64 },
            to: { type: 'string', maxLength: 64 },
            freeText: { type: 'string', maxLength: 1024 },
            query: { type: 'string', maxLength: MAX_QUERY_LENGTH },
            start: pageStart,
            size: pageSize,
            sort: {
              anyOf: [
                { type: 'string', maxLength: 1024 },
                { type: 'array', maxItems: 16, items: { type: 'string', maxLength: 1024 } },
              ],
            },
          },
        },
      },
    },
    (req) => workflows.search(toRunQuery(req.query)),
  );

  app.get<{ Params: { workflowId: string }; Querystring: { includeTasks?: boolean } }>(
    '/api/workflow/:workflowId',
    {
      schema: {
        tags,
        summary: 'Read a run with its tasks, inputs and outputs',
        params: idParam,
        querystring: { type: 'object', properties: { includeTasks: { type: 'boolean', default: true } } },
      },
    },
    (req) => workflows.get(req.params.workflowId, req.query.includeTasks ?? true),
  );

  app.get<{
    Params: { workflowId: string };
    Querystring: { includeOutput?: boolean; includeVariables?: boolean };
  }>(
    '/api/workflow/:workflowId/status',
    {
      schema: {
        tags,
        summary: 'Status of a run',
        params: idParam,
        querystring: {
          type: 'object',
          properties: {
            includeOutput: { type: 'boolean', default: false },
            includeVariables: { type: 'boolean', default: false },
          },
        },
      },
    },
    (req) =>
      workflows.status(
        req.params.workflowId,
        req.query.includeOutput ?? false,
        req.query.includeVariables ?? false,
      ),
  );

  app.get<{
    Params: { name: string; correlationId: string };
    Querystring: { includeClosed?: boolean; includeTasks?: boolean };
  }>(
    '/api/workflow/:name/correlated/:correlationId',
    {
      schema: {
        tags,
        summary: 'Runs of a definition sharing a correlation id',
        params: {
          type: 'object',
          required: ['name', 'correlationId'],
          properties: { name: requiredName, correlationId: { minLength: 1, ...text } },
        },
        querystring: correlatedQuery,
      },
    },
    (req) =>
      workflows.correlated(
        req.params.name,
        req.params.correlationId,
        req.query.includeClosed ?? false,
        req.query.includeTasks ?? false,
      ),
  );
}
