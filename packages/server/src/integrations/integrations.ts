import type { ValidationError } from '@baton/protocol';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Registry } from 'prom-client';

import type { Clock } from '../clock.js';
import type { Store, Tx } from '../store/store.js';
import type { CallFetch, CallHandler } from './call-handler.js';
import { ConnectorHandler } from './connector/connector-handler.js';
import {
  type DocumentBlobs,
  DocumentAnalysisHandler,
} from './document-intelligence/document-analysis-handler.js';
import { LlmCallHandler } from './llm/llm-handler.js';
import { LlmMetrics } from './llm/llm-metrics.js';
import { LlmProviderService } from './llm/llm-providers.js';
import { StoredRunTokens } from './llm/run-tokens.js';
import { McpSessions } from './mcp/mcp-sessions.js';
import { discoverTools, McpToolHandler } from './mcp/mcp-tool-handler.js';
import { checkServiceReferences } from './registry/check-references.js';
import { RegistryService } from './registry/registry-service.js';
import type { ServiceRecord } from './registry/service-record.js';
import { SecretService } from './secrets/secret-service.js';
import { PromptService } from './prompts/prompt-service.js';

/**
 * The integrations room, assembled: the secret store, the service registry, the LLM providers,
 * and the call handlers of CALL_TOOL/LIST_TOOLS (MCP), CONNECTOR, DOCUMENT_INTELLIGENCE and the
 * LLM_* kinds that the executor runs. The composition root registers the handlers and closes it on stop;
 * its routes are a route module (`routes.ts`).
 */
export interface Integrations {
  readonly secrets: SecretService;
  readonly registry: RegistryService;
  readonly llmProviders: LlmProviderService;
  readonly prompts: PromptService;
  readonly handlers: readonly CallHandler[];
  /** Registration checks that need the registry (services, tools, connectors, operations named). */
  readonly referenceChecks: (tx: Tx, def: unknown) => Promise<ValidationError[]>;
  close(): Promise<void>;
}

export function createIntegrations(input: {
  store: Store;
  clock: Clock;
  secretsKey: Buffer | undefined;
  /** The egress-checked fetch (the executor's agents), for asking MCP services their tools. */
  fetch?: CallFetch;
  /** The server's blob storage, where DOCUMENT_INTELLIGENCE reads a `blobPath` document. */
  documents?: DocumentBlobs;
  /** The server's metrics registry, for the LLM tasks' token usage. */
  metricsRegistry?: Registry;
  /** BATON_LLM_RUN_TOKEN_BUDGET (0: none). */
  llmRunTokenBudget?: number;
}): Integrations {
  const secrets = new SecretService(input.store, input.clock, input.secretsKey);
  const sessions = new McpSessions();
  // undici's fetch, which the SDK's transport takes as its own fetch.
  const fetch = input.fetch as unknown as FetchLike | undefined;
  const listTools = fetch && ((record: ServiceRecord) => discoverTools(record, sessions, fetch, secrets));
  const registry = new RegistryService(input.store, input.clock, listTools);
  const llmProviders = new LlmProviderService(input.store, input.clock, secrets);
  return {
    secrets,
    registry,
    llmProviders,
    prompts: new PromptService(input.store, input.clock),
    handlers: [
      new McpToolHandler(registry, sessions),
      new ConnectorHandler(registry),
      new DocumentAnalysisHandler(registry, input.documents),
      new LlmCallHandler(
        llmProviders,
        new StoredRunTokens(input.store),
        { runTokenBudget: input.llmRunTokenBudget ?? 0 },
        (name) => registry.find(name),
        input.metricsRegistry && new LlmMetrics(input.metricsRegistry),
      ),
    ],
    referenceChecks: checkServiceReferences,
    close: () => sessions.close(),
  };
}
