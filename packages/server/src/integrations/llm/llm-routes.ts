import type { JsonObject } from '@baton/protocol';
import type { FastifyInstance } from 'fastify';

import type { LlmProviderService } from './llm-providers.js';

/**
 * Conductor's integration routes as its SDK and UI call them (`IntegrationResource`):
 * `/api/integrations/provider[/{name}[/integration[/{model}]]]`. Admin only (route-group table).
 */

const tags = ['integrations'];
const name = { type: 'string', minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_.-]+$' } as const;
const model = { type: 'string', minLength: 1, maxLength: 256 } as const;
const nameParams = { type: 'object', required: ['name'], properties: { name } } as const;
const modelParams = {
  type: 'object',
  required: ['name', 'integration_name'],
  properties: { name, integration_name: model },
} as const;
const activeOnly = { type: 'boolean' } as const;
const providerBody = {
  type: 'object',
  properties: {
    category: { type: 'string', maxLength: 64 },
    type: { type: 'string', minLength: 1, maxLength: 64 },
    description: { type: 'string', maxLength: 4096 },
    enabled: { type: 'boolean' },
    configuration: {
      type: 'object',
      description:
        'api_key: ${workflow.secrets.NAME}, or a key value (sealed into the secret store as LLM_<name>_API_KEY, never kept in the record); endpoint: the base URL; other provider settings',
      properties: {
        api_key: { type: 'string', maxLength: 4096 },
        endpoint: { type: 'string', maxLength: 2048 },
      },
    },
  },
} as const;
const modelBody = {
  type: 'object',
  properties: {
    description: { type: 'string', maxLength: 4096 },
    enabled: { type: 'boolean' },
    configuration: { type: 'object' },
  },
} as const;

/**
 * The provider list at `url`: Orkes serves the same list as `/api/integrations/provider` and, for
 * its SDK's discovery, as `/api/integrations/`; one handler answers both.
 */
export function providerListRoute(
  app: FastifyInstance,
  providers: LlmProviderService,
  url: string,
  summary: string,
): void {
  app.get<{ Querystring: { category?: string; activeOnly?: boolean } }>(
    url,
    {
      schema: {
        tags,
        summary,
        querystring: {
          type: 'object',
          properties: { category: { type: 'string', maxLength: 64 }, activeOnly },
        },
      },
    },
    (req) =>
      providers.list({
        ...(req.query.category !== undefined && { category: req.query.category }),
        ...(req.query.activeOnly !== undefined && { activeOnly: req.query.activeOnly }),
      }),
  );
}

export function llmProviderRoutes(app: FastifyInstance, providers: LlmProviderService): void {
  providerListRoute(
    app,
    providers,
    '/api/integrations/provider',
    'The integration providers (LLM providers), optionally of one category or enabled only',
  );

  app.get<{ Params: { name: string } }>(
    '/api/integrations/provider/:name',
    { schema: { tags, summary: 'One integration provider', params: nameParams } },
    (req) => providers.get(req.params.name),
  );

  app.post<{ Params: { name: string }; Body: JsonObject }>(
    '/api/integrations/provider/:name',
    {
      schema: {
        tags,
        summary:
          'Add or replace an LLM provider (type openai, azure_openai, ollama, anthropic, …); its API key names a secret',
        params: nameParams,
        body: providerBody,
      },
    },
    async (req, reply) => {
      await providers.put(req.params.name, req.body ?? {});
      return reply.code(200).send();
    },
  );

  app.delete<{ Params: { name: string } }>(
    '/api/integrations/provider/:name',
    { schema: { tags, summary: 'Remove an integration provider and its models', params: nameParams } },
    async (req, reply) => {
      await providers.delete(req.params.name);
      return reply.code(200).send();
    },
  );

  app.get<{ Params: { name: string }; Querystring: { activeOnly?: boolean } }>(
    '/api/integrations/provider/:name/integration',
    {
      schema: {
        tags,
        summary: "A provider's models",
        params: nameParams,
        querystring: { type: 'object', properties: { activeOnly } },
      },
    },
    (req) => providers.models(req.params.name, req.query.activeOnly === true),
  );

  app.get<{ Params: { name: string; integration_name: string } }>(
    '/api/integrations/provider/:name/integration/:integration_name',
    { schema: { tags, summary: 'One model of a provider', params: modelParams } },
    (req) => providers.model(req.params.name, req.params.integration_name),
  );

  app.post<{ Params: { name: string; integration_name: string }; Body: JsonObject }>(
    '/api/integrations/provider/:name/integration/:integration_name',
    {
      schema: {
        tags,
        summary: 'Add or replace a model of a provider (a provider with models listed serves only those)',
        params: modelParams,
        body: modelBody,
      },
    },
    async (req, reply) => {
      await providers.putModel(req.params.name, req.params.integration_name, req.body ?? {});
      return reply.code(200).send();
    },
  );

  app.delete<{ Params: { name: string; integration_name: string } }>(
    '/api/integrations/provider/:name/integration/:integration_name',
    { schema: { tags, summary: 'Remove a model of a provider', params: modelParams } },
    async (req, reply) => {
      await providers.deleteModel(req.params.name, req.params.integration_name);
      return reply.code(200).send();
    },
  );
}
