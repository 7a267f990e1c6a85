import type { FastifyInstance } from 'fastify';

import type { PromptService } from '../prompts/prompt-service.js';
import { TAG_LIST_SCHEMA } from './integration-tags.js';
import { providerDefinitions } from './provider-definitions.js';
import type { LlmProviderService } from './llm-providers.js';
import { providerListRoute } from './llm-routes.js';

/**
 * The rest of Orkes' integration routes its SDK calls: discovery (`/api/integrations/`, `/all`,
 * `/def`), tags on providers and their models, and prompts associated with a model. Admin only
 * (route-group table).
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
const promptParams = {
  type: 'object',
  required: ['integration_provider', 'integration_name'],
  properties: { integration_provider: name, integration_name: model },
} as const;
const promptNameParams = {
  type: 'object',
  required: ['integration_provider', 'integration_name', 'prompt_name'],
  properties: { integration_provider: name, integration_name: model, prompt_name: name },
} as const;
const activeOnly = { type: 'boolean' } as const;

export function integrationCatalogRoutes(
  app: FastifyInstance,
  providers: LlmProviderService,
  prompts: PromptService,
): void {
  providerListRoute(
    app,
    providers,
    '/api/integrations/',
    'Every integration (provider), optionally of one category or enabled only',
  );

  app.get<{ Querystring: { type?: string; activeOnly?: boolean } }>(
    '/api/integrations/all',
    {
      schema: {
        tags,
        summary: "Every provider's models as provider:model, optionally of one provider type or enabled only",
        querystring: { type: 'object', properties: { type: { type: 'string', maxLength: 64 }, activeOnly } },
      },
    },
    (req) =>
      providers.providerModelNames({
        ...(req.query.type !== undefined && { type: req.query.type }),
        ...(req.query.activeOnly !== undefined && { activeOnly: req.query.activeOnly }),
      }),
  );

  app.get(
    '/api/integrations/def',
    { schema: { tags, summary: 'The provider kinds this server can run (AI models)' } },
    () => providerDefinitions(),
  );

  app.get<{ Params: { name: string } }>(
    '/api/integrations/provider/:name/tags',
    { schema: { tags, summary: "A provider's tags", params: nameParams } },
    (req) => providers.providerTags(req.params.name),
  );

  for (const [method, change] of [
    ['PUT', 'add'],
    ['DELETE', 'remove'],
  ] as const)
    app.route<{ Params: { name: string }; Body: unknown }>({
      method,
      url: '/api/integrations/provider/:name/tags',
      schema: {
        tags,
        summary:
          change === 'add' ? 'Add tags to a provider' : 'Remove tags (same key and value) from a provider',
        params: nameParams,
        body: TAG_LIST_SCHEMA,
      },
      handler: async (req, reply) => {
        await providers.changeProviderTags(req.params.name, req.body, change);
        return reply.code(200).send();
      },
    });

  app.get<{ Params: { name: string; integration_name: string } }>(
    '/api/integrations/provider/:name/integration/:integration_name/tags',
    { schema: { tags, summary: "A model's tags", params: modelParams } },
    (req) => providers.modelTags(req.params.name, req.params.integration_name),
  );

  for (const [method, change] of [
    ['PUT', 'add'],
    ['DELETE', 'remove'],
  ] as const)
    app.route<{ Params: { name: string; integration_name: string }; Body: unknown }>({
      method,
      url: '/api/integrations/provider/:name/integration/:integration_name/tags',
      schema: {
        tags,
        summary: change === 'add' ? 'Add tags to a model' : 'Remove tags (same key and value) from a model',
        params: modelParams,
        body: TAG_LIST_SCHEMA,
      },
      handler: async (req, reply) => {
        await providers.changeModelTags(req.params.name, req.params.integration_name, req.body, change);
        return reply.code(200).send();
      },
    });

  app.get<{ Params: { integration_provider: string; integration_name: string } }>(
    '/api/integrations/provider/:integration_provider/integration/:integration_name/prompt',
    { schema: { tags, summary: 'The prompt templates associated with a model', params: promptParams } },
    async (req) =>
      prompts.some(
        await providers.modelPrompts(req.params.integration_provider, req.params.integration_name),
      ),
  );

  app.post<{ Params: { integration_provider: string; integration_name: string; prompt_name: string } }>(
    '/api/integrations/provider/:integration_provider/integration/:integration_name/prompt/:prompt_name',
    { schema: { tags, summary: 'Associate a prompt template with a model', params: promptNameParams } },
    async (req, reply) => {
      const { integration_provider, integration_name, prompt_name } = req.params;
      // Checked first so nothing changes when the prompt is missing.
      await prompts.get(prompt_name);
      await providers.associatePrompt(integration_provider, integration_name, prompt_name);
      return reply.code(200).send();
    },
  );
}
