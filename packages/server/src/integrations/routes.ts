import type { FastifyInstance } from 'fastify';

import type { LlmProviderService } from './llm/llm-providers.js';
import { integrationCatalogRoutes } from './llm/integration-catalog-routes.js';
import { llmProviderRoutes } from './llm/llm-routes.js';
import { promptRoutes } from './prompts/prompt-routes.js';
import type { PromptService } from './prompts/prompt-service.js';
import type { RegistryService } from './registry/registry-service.js';
import { registryRoutes } from './registry/registry-routes.js';
import { secretRoutes } from './secrets/secret-routes.js';
import type { SecretService } from './secrets/secret-service.js';

/** What the integrations room's routes need: its services. */
export interface IntegrationRouteDeps {
  readonly integrations: {
    readonly secrets: SecretService;
    readonly registry: RegistryService;
    readonly llmProviders: LlmProviderService;
    readonly prompts: PromptService;
  };
}

/** The integrations room's route module: `/api/secrets`, `/api/registry`, `/api/integrations`. */
export function integrationRoutes(app: FastifyInstance, { integrations }: IntegrationRouteDeps): void {
  secretRoutes(app, integrations.secrets);
  registryRoutes(app, integrations.registry);
  llmProviderRoutes(app, integrations.llmProviders);
  integrationCatalogRoutes(app, integrations.llmProviders, integrations.prompts);
  promptRoutes(app, integrations.prompts);
}
