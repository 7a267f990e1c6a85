import type { TaskDef, WorkflowDef } from '@baton/protocol';
import type { FastifyInstance, FastifyReply } from 'fastify';

import { actorOf } from '../../auth/authorship.js';
import type { AppDeps } from '../app-deps.js';
import { MAX_LIST_ITEMS, nameParams, requiredName, version } from '../bounds.js';
import { taskDefSchema, workflowDefSchema } from '../schemas.js';
import { workflowDefWarnings } from '../../engine/index.js';

const tags = ['metadata'];
const nameParam = nameParams('name');

/** `/api/metadata`: workflow definitions (versioned) and task definitions. */
export function metadataRoutes(app: FastifyInstance, { metadata }: AppDeps): void {
  app.post<{ Body: WorkflowDef; Querystring: { overwrite?: boolean } }>(
    '/api/metadata/workflow',
    {
      schema: {
        tags,
        summary: 'Register a workflow definition (next version when none is given)',
        body: workflowDefSchema,
        querystring: { type: 'object', properties: { overwrite: { type: 'boolean', default: false } } },
      },
    },
    async (req, reply) => {
      const stored = await metadata.registerWorkflow(req.body, req.query.overwrite ?? false, actorOf(req));
      warn(reply, workflowDefWarnings(req.body));
      return stored;
    },
  );

  app.post<{ Body: WorkflowDef }>(
    '/api/metadata/workflow/validate',
    { schema: { tags, summary: 'Check a workflow definition without storing it', body: workflowDefSchema } },
    async (req, reply) => {
      await metadata.validateWorkflow(req.body);
      return reply.code(200).send({ valid: true });
    },
  );

  app.put<{ Body: WorkflowDef[] }>(
    '/api/metadata/workflow',
    {
      schema: {
        tags,
        summary: 'Register or replace several workflow definitions (all or nothing)',
        body: { type: 'array', items: workflowDefSchema, minItems: 1, maxItems: MAX_LIST_ITEMS },
      },
    },
    async (req, reply) => {
      const result = await metadata.upsertWorkflows(req.body, actorOf(req));
      warn(
        reply,
        req.body.flatMap((def) => workflowDefWarnings(def).map((w) => `${def.name}: ${w}`)),
      );
      return result;
    },
  );

  app.get(
    '/api/metadata/workflow',
    { schema: { tags, summary: 'List every version of every definition' } },
    () => metadata.listWorkflows(),
  );

  app.get<{ Params: { name: string }; Querystring: { version?: number } }>(
    '/api/metadata/workflow/:name',
    {
      schema: {
        tags,
        summary: 'Read a definition (latest version when none is given)',
        params: nameParam,
        querystring: { type: 'object', properties: { version } },
      },
    },
    (req) => metadata.getWorkflow(req.params.name, req.query.version),
  );

  app.delete<{ Params: { name: string; version: number } }>(
    '/api/metadata/workflow/:name/:version',
    {
      schema: {
        tags,
        summary: 'Remove one version (refused while runs of it exist)',
        params: {
          type: 'object',
          required: ['name', 'version'],
          properties: { name: requiredName, version },
        },
      },
    },
    async (req, reply) => {
      await metadata.deleteWorkflow(req.params.name, req.params.version);
      return reply.code(200).send();
    },
  );

  app.post<{ Body: TaskDef[] | TaskDef }>(
    '/api/metadata/taskdefs',
    {
      schema: {
        tags,
        summary: 'Register task definitions (a list, or one); each creates its worker queue',
        body: {
          anyOf: [
            { type: 'array', items: taskDefSchema, minItems: 1, maxItems: MAX_LIST_ITEMS },
            taskDefSchema,
          ],
        },
      },
    },
    (req) => metadata.registerTaskDefs(Array.isArray(req.body) ? req.body : [req.body], actorOf(req)),
  );

  app.post<{ Body: TaskDef }>(
    '/api/metadata/taskdefs/validate',
    {
      schema: { tags, summary: 'Check a task definition without storing it', body: taskDefSchema },
    },
    async (req, reply) => {
      metadata.validateTaskDef(req.body);
      return reply.code(200).send({ valid: true });
    },
  );

  app.put<{ Body: TaskDef }>(
    '/api/metadata/taskdefs',
    { schema: { tags, summary: 'Update an existing task definition', body: taskDefSchema } },
    (req) => metadata.updateTaskDef(req.body, actorOf(req)),
  );

  app.get('/api/metadata/taskdefs', { schema: { tags, summary: 'List task definitions' } }, () =>
    metadata.listTaskDefs(),
  );

  app.get<{ Params: { name: string } }>(
    '/api/metadata/taskdefs/:name',
    { schema: { tags, summary: 'Read a task definition', params: nameParam } },
    (req) => metadata.getTaskDef(req.params.name),
  );

  app.delete<{ Params: { name: string } }>(
    '/api/metadata/taskdefs/:name',
    { schema: { tags, summary: 'Remove a task definition', params: nameParam } },
    async (req, reply) => {
      await metadata.deleteTaskDef(req.params.name);
      return reply.code(200).send();
    },
  );
}

/**
 * What a registration accepted but would be refused elsewhere, as HTTP `Warning` headers
 * (`199 - "text"`): the answer's body stays the one the contract gives.
 */
function warn(reply: FastifyReply, warnings: readonly string[]): void {
  if (warnings.length === 0) return;
  const quoted = warnings.map((w) => `199 - "${w.replace(/[^\x20-\x7e]/g, '?').replace(/["\\]/g, "'")}"`);
  void reply.header('warning', quoted.join(', '));
}
