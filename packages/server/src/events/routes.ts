import { EVENT_ACTION_KINDS, type EventHandler } from '@baton/protocol';
import type { FastifyInstance } from 'fastify';

import { actorOf } from '../auth/authorship.js';

import type { EventHandlerService } from './handler-service.js';

const paramsObject = { type: 'object', additionalProperties: true, maxProperties: 200 } as const;

const actionSchema = {
  type: 'object',
  required: ['action'],
  properties: {
    action: { type: 'string', enum: EVENT_ACTION_KINDS },
    start_workflow: paramsObject,
    complete_task: paramsObject,
    fail_task: paramsObject,
    terminate_workflow: paramsObject,
    update_workflow_variables: paramsObject,
    expandInlineJSON: { type: 'boolean' },
  },
} as const;

export const eventHandlerSchema = {
  type: 'object',
  required: ['name', 'event', 'actions'],
  properties: {
    name: { type: 'string', maxLength: 255 },
    event: { type: 'string', maxLength: 1024 },
    condition: { type: 'string', maxLength: 65536 },
    evaluatorType: { type: 'string', maxLength: 64 },
    actions: { type: 'array', maxItems: 100, items: actionSchema },
    active: { type: 'boolean' },
    description: { type: 'string', maxLength: 4096 },
  },
} as const;

export interface EventRouteDeps {
  eventHandlers: EventHandlerService;
}

/** `/api/event`: Conductor's EventResource, and what each handler did with each message. */
export function eventRoutes(app: FastifyInstance, { eventHandlers }: EventRouteDeps): void {
  const tags = ['event'];
  app.post<{ Body: EventHandler | EventHandler[] }>(
    '/api/event',
    {
      schema: {
        tags,
        summary:
          'Add an event handler, or a list of them (all or nothing); 409 when a name exists, and then none is added',
        body: {
          anyOf: [
            eventHandlerSchema,
            { type: 'array', minItems: 1, maxItems: 100, items: eventHandlerSchema },
          ],
        },
      },
    },
    async (req, reply) => {
      const actor = actorOf(req);
      if (Array.isArray(req.body)) await eventHandlers.createAll(req.body, actor);
      else await eventHandlers.create(req.body, actor);
      return reply.code(200).send();
    },
  );
  app.put<{ Body: EventHandler }>(
    '/api/event',
    { schema: { tags, summary: 'Replace an event handler (404 when missing)', body: eventHandlerSchema } },
    async (req, reply) => {
      await eventHandlers.update(req.body, actorOf(req));
      return reply.code(200).send();
    },
  );
  app.get('/api/event', { schema: { tags, summary: 'Every event handler' } }, () => eventHandlers.list());

  const executions = {
    schema: {
      tags,
      summary:
        'What handlers did with messages: Conductor EventExecutions, newest first ({totalHits, results})',
      querystring: {
        type: 'object',
        properties: {
          handler: { type: 'string', maxLength: 255 },
          start: { type: 'integer', minimum: 0, maximum: 1_000_000, default: 0 },
          size: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
        },
      },
    },
  } as const;
  type ExecQuery = { Querystring: { handler?: string; start: number; size: number } };
  app.get<ExecQuery>('/api/event/executions', executions, (req) =>
    eventHandlers.executions(req.query.handler, req.query.start, req.query.size),
  );
  app.get<ExecQuery>('/api/event/execution', executions, (req) =>
    eventHandlers.executions(req.query.handler, req.query.start, req.query.size),
  );

  app.get<{ Params: { name: string } }>(
    '/api/event/handler/:name',
    {
      schema: {
        tags,
        summary: "One event handler by name (Orkes's getEventHandlerByName); 404 when there is none",
        params: {
          type: 'object',
          required: ['name'],
          properties: { name: { type: 'string', minLength: 1, maxLength: 255 } },
        },
      },
    },
    (req) => eventHandlers.get(req.params.name),
  );

  app.get<{ Params: { event: string }; Querystring: { activeOnly: boolean } }>(
    '/api/event/:event',
    {
      schema: {
        tags,
        summary: 'The handlers of one event (`amqp:orders`)',
        params: {
          type: 'object',
          required: ['event'],
          properties: { event: { type: 'string', minLength: 1, maxLength: 1024 } },
        },
        querystring: { type: 'object', properties: { activeOnly: { type: 'boolean', default: true } } },
      },
    },
    (req) => eventHandlers.forEvent(req.params.event, req.query.activeOnly),
  );
  app.delete<{ Params: { name: string } }>(
    '/api/event/:name',
    {
      schema: {
        tags,
        summary: 'Remove an event handler',
        params: {
          type: 'object',
          required: ['name'],
          properties: { name: { type: 'string', minLength: 1, maxLength: 255 } },
        },
      },
    },
    async (req, reply) => {
      await eventHandlers.remove(req.params.name);
      return reply.code(200).send();
    },
  );
}
