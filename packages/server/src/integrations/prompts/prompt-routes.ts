import type { FastifyInstance } from 'fastify';

import { TAG_LIST_SCHEMA } from '../llm/integration-tags.js';
import type { PromptService } from './prompt-service.js';

/** Orkes' prompt registry routes as its SDK calls them (`PromptResource`). Admin only. */

const tags = ['prompts'];
const name = { type: 'string', minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_.-]+$' } as const;
const nameParams = { type: 'object', required: ['name'], properties: { name } } as const;
const saveQuery = {
  type: 'object',
  properties: {
    description: { type: 'string', maxLength: 4096 },
    models: { type: 'array', maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 512 } },
    version: { type: 'integer', minimum: 1 },
    autoIncrement: { type: 'boolean' },
  },
} as const;

interface SaveRequest {
  Params: { name: string };
  Querystring: { description?: string; models?: string[] };
  Body: unknown;
}

export function promptRoutes(app: FastifyInstance, prompts: PromptService): void {
  app.get('/api/prompts', { schema: { tags, summary: 'Every prompt template' } }, () => prompts.list());

  app.get<{ Params: { name: string } }>(
    '/api/prompts/:name',
    { schema: { tags, summary: 'One prompt template', params: nameParams } },
    (req) => prompts.get(req.params.name),
  );

  // The template is the body: text, or a JSON string (how Conductor's clients send it).
  for (const method of ['POST', 'PUT'] as const)
    app.route<SaveRequest>({
      method,
      url: '/api/prompts/:name',
      schema: {
        tags,
        summary:
          method === 'POST'
            ? 'Add or replace a prompt template (the body is its text; each save is a new version)'
            : 'Replace a prompt template (the body is its text)',
        params: nameParams,
        querystring: saveQuery,
        body: { type: 'string', minLength: 1, maxLength: 65536 },
      },
      handler: async (req, reply) => {
        await prompts.put(req.params.name, {
          template: req.body,
          ...(req.query.description !== undefined && { description: req.query.description }),
          ...(req.query.models !== undefined && { models: req.query.models }),
        });
        return reply.code(200).send();
      },
    });

  app.get<{ Params: { name: string } }>(
    '/api/prompts/:name/tags',
    { schema: { tags, summary: "A prompt template's tags", params: nameParams } },
    (req) => prompts.tags(req.params.name),
  );

  for (const [method, change] of [
    ['PUT', 'add'],
    ['DELETE', 'remove'],
  ] as const)
    app.route<{ Params: { name: string }; Body: unknown }>({
      method,
      url: '/api/prompts/:name/tags',
      schema: {
        tags,
        summary:
          change === 'add'
            ? 'Add tags to a prompt template'
            : 'Remove tags (same key and value) from a prompt template',
        params: nameParams,
        body: TAG_LIST_SCHEMA,
      },
      handler: async (req, reply) => {
        await prompts.changeTags(req.params.name, req.body, change);
        return reply.code(200).send();
      },
    });

  app.delete<{ Params: { name: string } }>(
    '/api/prompts/:name',
    { schema: { tags, summary: 'Remove a prompt template', params: nameParams } },
    async (req, reply) => {
      await prompts.delete(req.params.name);
      return reply.code(200).send();
    },
  );
}
