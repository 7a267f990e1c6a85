import type { JsonObject } from '@baton/protocol';

/**
 * The provider kinds Baton's AI tasks can call (Orkes' `IntegrationDef`), for
 * `GET /api/integrations/def`. Every kind but `anthropic` and `azure_openai` speaks the OpenAI API
 * at its endpoint (see protocolOf).
 */
const KINDS: ReadonlyArray<readonly [type: string, description: string]> = [
  ['openai', 'OpenAI, or any server speaking the OpenAI Chat Completions and Embeddings API at its endpoint'],
  ['azure_openai', 'Azure OpenAI (deployment paths, api_version)'],
  ['anthropic', "Anthropic's Messages API"],
  ['ollama', 'Ollama (the OpenAI-compatible API)'],
  ['vllm', 'vLLM (the OpenAI-compatible API)'],
  ['litellm', 'LiteLLM (the OpenAI-compatible API)'],
  ['mistral', 'Mistral (the OpenAI-compatible API)'],
];

const FIELDS: JsonObject[] = [
  {
    fieldName: 'api_key',
    label: 'API key',
    fieldType: 'PASSWORD',
    optional: true,
    description: '${workflow.secrets.NAME}, or a value sealed as a secret (needs BATON_SECRETS_KEY)',
  },
  {
    fieldName: 'endpoint',
    label: 'Endpoint',
    fieldType: 'TEXT',
    optional: true,
    description: 'the base URL',
  },
];

export function providerDefinitions(): JsonObject[] {
  return KINDS.map(([type, description]) => ({
    name: type,
    type,
    category: 'AI_MODEL',
    categoryLabel: 'AI / LLM',
    description,
    enabled: true,
    configuration: FIELDS,
    apis: [],
    tags: [],
  }));
}
