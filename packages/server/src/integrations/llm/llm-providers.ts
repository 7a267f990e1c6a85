import type { JsonObject, ValidationError } from '@baton/protocol';

import type { Clock } from '../../clock.js';
import { fail } from '../../errors.js';
import type { Store, StoredService } from '../../store/store.js';
import { SECRET_NAME_PATTERN } from '../secrets/secret-refs.js';
import { type IntegrationTag, mergeTags, removeTags, tagsOf } from './integration-tags.js';

/**
 * LLM providers as named integrations, the way Conductor (Orkes) configures them:
 * `POST /api/integrations/provider/{name}` with `{category: 'AI_MODEL', type, configuration:
 * {api_key, endpoint}, description, enabled}`, and the provider's models as
 * `POST /api/integrations/provider/{name}/integration/{model}`. The API key is a Baton secret
 * (`${workflow.secrets.NAME}`, or a name in `api_key_secret`): the record keeps its name only. A
 * key value sent as Conductor's clients send it is sealed into the secret store at once (as
 * `LLM_<provider>_API_KEY`) and the record names that secret; without BATON_SECRETS_KEY it is
 * refused (409), never stored.
 *
 * `type` picks the protocol: `anthropic` speaks Anthropic's Messages API; every other type
 * (`openai`, `ollama`, `vllm`, `litellm`, `mistral`, …) speaks the OpenAI Chat Completions and
 * Embeddings API at its `endpoint`; `azure_openai` the same API the Azure way (deployment paths
 * named by the model, `api_version` from the configuration).
 *
 * Records live in the service registry's table under a name no registry service can take
 * (`llm-provider:` + name; registry names allow no colon), so they need no schema of their own;
 * the registry's listing leaves them out.
 */

export const LLM_PROVIDER_ROW_PREFIX = 'llm-provider:';
export const isLlmProviderRow = (name: string): boolean => name.startsWith(LLM_PROVIDER_ROW_PREFIX);

export type LlmProtocol = 'openai' | 'azure' | 'anthropic';

export interface LlmModelRecord {
  api: string;
  description?: string;
  enabled: boolean;
  configuration?: JsonObject;
  /** The secret holding this model's own API key (sent as a key value, sealed like the provider's). */
  apiKeySecret?: string;
  tags?: IntegrationTag[];
  /** Names of the prompts associated with this model (Orkes' prompt association). */
  prompts?: string[];
  createdOn: number;
  updatedOn: number;
}

export interface LlmProviderRecord {
  name: string;
  type: string;
  category: string;
  /** The provider's base URL (the clients' `baseURL`); absent: the vendor's public endpoint. */
  endpoint?: string;
  /** The secret holding the API key; absent: no key is sent (a local Ollama, vLLM). */
  apiKeySecret?: string;
  description?: string;
  enabled: boolean;
  models: LlmModelRecord[];
  /** Other configuration entries (no credentials), answered as given. */
  configuration: JsonObject;
  tags?: IntegrationTag[];
}

export function protocolOf(type: string): LlmProtocol {
  const t = type.toLowerCase();
  if (t === 'anthropic') return 'anthropic';
  // Azure OpenAI: the same protocol under deployment paths, an api-version and an api-key header.
  if (t === 'azure_openai' || t === 'azure_open_ai' || t === 'azureopenai') return 'azure';
  return 'openai';
}

const NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const SECRET_REF = /^\$\{workflow\.secrets\.([^}]+)\}$/;
const SECRET_NAME = new RegExp(SECRET_NAME_PATTERN);
const KEY_FIELDS = ['api_key', 'apiKey'] as const;
const KEY_SECRET_FIELDS = ['api_key_secret', 'apiKeySecret'] as const;
const ENDPOINT_FIELDS = ['endpoint', 'api_endpoint', 'baseURL', 'base_url', 'baseUrl'] as const;

const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);

function invalid(errors: ValidationError[]): never {
  throw fail('INTEGRATION_INVALID', {}, errors);
}

export function checkName(name: string, field: string): void {
  if (!NAME.test(name))
    invalid([
      { path: field, message: 'a name of 1 to 128 letters, digits, _ . -', invalidValue: name.slice(0, 200) },
    ]);
}

/**
 * The API key as configured: a secret's name (`${workflow.secrets.NAME}`, or a name in
 * `api_key_secret`), or a key value to seal.
 */
function apiKeyOf(configuration: JsonObject): { secret: string } | { value: string } | undefined {
  for (const field of KEY_SECRET_FIELDS) {
    const value = configuration[field];
    if (value === undefined || value === null || value === '') continue;
    if (typeof value !== 'string' || !SECRET_NAME.test(value))
      invalid([
        { path: `configuration.${field}`, message: 'the name of a Baton secret', invalidValue: null },
      ]);
    return { secret: value };
  }
  for (const field of KEY_FIELDS) {
    const value = configuration[field];
    if (value === undefined || value === null || value === '') continue;
    // The value is never echoed in an error: it may be a key.
    if (typeof value !== 'string')
      invalid([{ path: `configuration.${field}`, message: 'a string', invalidValue: null }]);
    const name = SECRET_REF.exec(value)?.[1];
    if (name !== undefined && !SECRET_NAME.test(name))
      invalid([
        {
          path: `configuration.${field}`,
          message: 'a secret placeholder names a secret of 1 to 128 letters, digits, _ or -',
          invalidValue: null,
        },
      ]);
    if (value.includes('${') && name === undefined)
      invalid([
        {
          path: `configuration.${field}`,
          message: 'the API key is a key value or exactly ${workflow.secrets.NAME}',
          invalidValue: null,
        },
      ]);
    return name !== undefined ? { secret: name } : { value };
  }
  return undefined;
}

function endpointOf(configuration: JsonObject): string | undefined {
  for (const field of ENDPOINT_FIELDS) {
    const value = configuration[field];
    if (value === undefined || value === null || value === '') continue;
    let url: URL | undefined;
    try {
      url = typeof value === 'string' ? new URL(value) : undefined;
    } catch {
      url = undefined;
    }
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:'))
      invalid([
        {
          path: `configuration.${field}`,
          message: 'an http(s) URL',
          invalidValue: typeof value === 'string' ? value.slice(0, 200) : null,
        },
      ]);
    return value as string;
  }
  return undefined;
}

/** The answer shape of Conductor's `Integration` (the key as its placeholder, never a value). */
export function providerAnswer(
  record: LlmProviderRecord,
  row: Pick<StoredService, 'createTime' | 'updateTime'>,
): JsonObject {
  const configuration: JsonObject = { ...record.configuration };
  if (record.endpoint !== undefined) configuration.endpoint = record.endpoint;
  if (record.apiKeySecret !== undefined)
    configuration.api_key = `\${workflow.secrets.${record.apiKeySecret}}`;
  return {
    name: record.name,
    category: record.category,
    type: record.type,
    description: record.description ?? '',
    enabled: record.enabled,
    configuration,
    modelsCount: record.models.length,
    models: record.models.map((m) => modelAnswer(record.name, m)),
    tags: record.tags ?? [],
    createTime: row.createTime,
    updateTime: row.updateTime,
  };
}

/** The answer shape of Conductor's `IntegrationApi`. */
export function modelAnswer(provider: string, model: LlmModelRecord): JsonObject {
  // Key fields are stripped here too: a model saved before keys were sealed may hold one.
  const configuration: JsonObject = withoutKeys(model.configuration ?? {});
  if (model.apiKeySecret !== undefined) configuration.api_key = `\${workflow.secrets.${model.apiKeySecret}}`;
  return {
    integrationName: provider,
    api: model.api,
    description: model.description ?? '',
    enabled: model.enabled,
    configuration,
    tags: model.tags ?? [],
    createTime: model.createdOn,
    updateTime: model.updatedOn,
  };
}

function recordOf(row: StoredService): LlmProviderRecord {
  return row.record as unknown as LlmProviderRecord;
}

/** Where a key value sent with a provider is sealed (the secret store). */
export interface KeySealer {
  put(name: string, value: string): Promise<unknown>;
}

/** The secret a provider's key value is sealed as. */
export function keySecretName(provider: string, model?: string): string {
  const part = (text: string): string => text.replace(/[^A-Za-z0-9_-]/g, '_');
  const owner = model === undefined ? part(provider) : `${part(provider)}_${part(model)}`;
  return `LLM_${owner}_API_KEY`.slice(0, 128);
}

/** A configuration without its key and key-secret fields (those are kept as a secret's name). */
function withoutKeys(configuration: JsonObject): JsonObject {
  const rest: JsonObject = {};
  for (const [k, v] of Object.entries(configuration)) {
    if ((KEY_FIELDS as readonly string[]).includes(k) || (KEY_SECRET_FIELDS as readonly string[]).includes(k))
      continue;
    rest[k] = v;
  }
  return rest;
}

export class LlmProviderService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly sealer?: KeySealer,
  ) {}

  /** The provider a task names, or undefined; read at call time, so a change applies to the next call. */
  async find(name: string): Promise<LlmProviderRecord | undefined> {
    const row = await this.store.read((tx) => tx.getService(LLM_PROVIDER_ROW_PREFIX + name));
    return row ? recordOf(row) : undefined;
  }

  private async row(name: string): Promise<StoredService> {
    const row = await this.store.read((tx) => tx.getService(LLM_PROVIDER_ROW_PREFIX + name));
    if (!row) throw fail('INTEGRATION_PROVIDER_NOT_FOUND', { name });
    return row;
  }

  async list(filter: { category?: string; activeOnly?: boolean }): Promise<JsonObject[]> {
    const rows = await this.store.read((tx) => tx.listServices());
    return rows
      .filter((row) => isLlmProviderRow(row.name))
      .map((row) => ({ row, record: recordOf(row) }))
      .filter(({ record }) => filter.category === undefined || record.category === filter.category)
      .filter(({ record }) => filter.activeOnly !== true || record.enabled)
      .map(({ row, record }) => providerAnswer(record, row));
  }

  async get(name: string): Promise<JsonObject> {
    const row = await this.row(name);
    return providerAnswer(recordOf(row), row);
  }

  /** Adds or replaces a provider (its models are kept). */
  async put(name: string, body: JsonObject): Promise<void> {
    checkName(name, 'name');
    const configuration = isObject(body.configuration) ? body.configuration : {};
    if (body.configuration !== undefined && !isObject(body.configuration))
      invalid([{ path: 'configuration', message: 'an object', invalidValue: null }]);
    const type = typeof body.type === 'string' && body.type !== '' ? body.type : 'openai';
    const category = typeof body.category === 'string' && body.category !== '' ? body.category : 'AI_MODEL';
    if (category !== 'AI_MODEL')
      invalid([
        {
          path: 'category',
          message: 'only AI_MODEL providers are run by this server',
          invalidValue: category,
        },
      ]);
    const apiKey = apiKeyOf(configuration);
    const endpoint = endpointOf(configuration);
    let apiKeySecret: string | undefined;
    if (apiKey !== undefined && 'value' in apiKey) {
      if (!this.sealer)
        invalid([
          {
            path: 'configuration.api_key',
            message: 'name a secret: ${workflow.secrets.NAME}',
            invalidValue: null,
          },
        ]);
      apiKeySecret = keySecretName(name);
      // Sealed first: a record never names a secret that was not stored (409 without BATON_SECRETS_KEY).
      await this.sealer.put(apiKeySecret, apiKey.value);
    } else apiKeySecret = apiKey?.secret;
    const rest: JsonObject = {};
    for (const [k, v] of Object.entries(configuration)) {
      if (
        (KEY_FIELDS as readonly string[]).includes(k) ||
        (KEY_SECRET_FIELDS as readonly string[]).includes(k)
      )
        continue;
      if ((ENDPOINT_FIELDS as readonly string[]).includes(k)) continue;
      rest[k] = v;
    }
    const now = this.clock.now();
    await this.store.transaction(async (tx) => {
      const previous = await tx.getService(LLM_PROVIDER_ROW_PREFIX + name);
      const record: LlmProviderRecord = {
        name,
        type,
        category,
        enabled: body.enabled !== false,
        models: previous ? recordOf(previous).models : [],
        ...(previous && recordOf(previous).tags !== undefined && { tags: recordOf(previous).tags }),
        configuration: rest,
        ...(endpoint !== undefined && { endpoint }),
        ...(apiKeySecret !== undefined && { apiKeySecret }),
        ...(typeof body.description === 'string' && { description: body.description }),
      };
      await tx.putService({
        name: LLM_PROVIDER_ROW_PREFIX + name,
        record: record as unknown as JsonObject,
        createTime: previous?.createTime ?? now,
        updateTime: now,
      });
    });
  }

  async delete(name: string): Promise<void> {
    if (!(await this.store.transaction((tx) => tx.deleteService(LLM_PROVIDER_ROW_PREFIX + name))))
      throw fail('INTEGRATION_PROVIDER_NOT_FOUND', { name });
  }

  async models(name: string, activeOnly: boolean): Promise<JsonObject[]> {
    const record = recordOf(await this.row(name));
    return record.models.filter((m) => !activeOnly || m.enabled).map((m) => modelAnswer(name, m));
  }

  async model(name: string, api: string): Promise<JsonObject> {
    const record = recordOf(await this.row(name));
    const model = record.models.find((m) => m.api === api);
    if (!model) throw fail('INTEGRATION_MODEL_NOT_FOUND', { model: api, name });
    return modelAnswer(name, model);
  }

  async putModel(name: string, api: string, body: JsonObject): Promise<void> {
    if (api === '' || api.length > 256)
      invalid([
        {
          path: 'integration_name',
          message: 'a model name of 1 to 256 characters',
          invalidValue: api.slice(0, 200),
        },
      ]);
    if (body.configuration !== undefined && !isObject(body.configuration))
      invalid([{ path: 'configuration', message: 'an object', invalidValue: null }]);
    const configuration = isObject(body.configuration) ? body.configuration : undefined;
    // The provider must exist before a key is sealed for one of its models.
    await this.row(name);
    const apiKey = configuration && apiKeyOf(configuration);
    let apiKeySecret: string | undefined;
    if (apiKey !== undefined && 'value' in apiKey) {
      if (!this.sealer)
        invalid([
          {
            path: 'configuration.api_key',
            message: 'name a secret: ${workflow.secrets.NAME}',
            invalidValue: null,
          },
        ]);
      apiKeySecret = keySecretName(name, api);
      // As for a provider: sealed first, never kept in the record (409 without BATON_SECRETS_KEY).
      await this.sealer.put(apiKeySecret, apiKey.value);
    } else apiKeySecret = apiKey?.secret;
    const now = this.clock.now();
    await this.store.transaction(async (tx) => {
      const row = await tx.getService(LLM_PROVIDER_ROW_PREFIX + name);
      if (!row) throw fail('INTEGRATION_PROVIDER_NOT_FOUND', { name });
      const record = recordOf(row);
      const previous = record.models.find((m) => m.api === api);
      const model: LlmModelRecord = {
        api,
        enabled: body.enabled !== false,
        createdOn: previous?.createdOn ?? now,
        updatedOn: now,
        ...(typeof body.description === 'string' && { description: body.description }),
        ...(configuration !== undefined && { configuration: withoutKeys(configuration) }),
        ...(apiKeySecret !== undefined && { apiKeySecret }),
        ...(previous?.tags !== undefined && { tags: previous.tags }),
        ...(previous?.prompts !== undefined && { prompts: previous.prompts }),
      };
      const models = [...record.models.filter((m) => m.api !== api), model].sort((a, b) =>
        a.api.localeCompare(b.api),
      );
      await tx.putService({
        ...row,
        record: { ...record, models } as unknown as JsonObject,
        updateTime: now,
      });
    });
  }

  /** Every provider's models, as `provider:model` (Conductor's `GET /api/integrations/all`). */
  async providerModelNames(filter: { type?: string; activeOnly?: boolean }): Promise<string[]> {
    const rows = await this.store.read((tx) => tx.listServices());
    const names: string[] = [];
    for (const row of rows) {
      if (!isLlmProviderRow(row.name)) continue;
      const record = recordOf(row);
      if (filter.type !== undefined && record.type !== filter.type) continue;
      if (filter.activeOnly === true && !record.enabled) continue;
      for (const m of record.models)
        if (filter.activeOnly !== true || m.enabled) names.push(`${record.name}:${m.api}`);
    }
    return names;
  }

  async providerTags(name: string): Promise<IntegrationTag[]> {
    return recordOf(await this.row(name)).tags ?? [];
  }

  /** Adds tags to a provider (a tag already there with the same key and value is kept once). */
  async changeProviderTags(name: string, body: unknown, change: 'add' | 'remove'): Promise<void> {
    const given = tagsOf(body);
    await this.store.transaction(async (tx) => {
      const row = await tx.getService(LLM_PROVIDER_ROW_PREFIX + name);
      if (!row) throw fail('INTEGRATION_PROVIDER_NOT_FOUND', { name });
      const record = recordOf(row);
      const tags = change === 'add' ? mergeTags(record.tags, given) : removeTags(record.tags, given);
      await tx.putService({ ...row, record: { ...record, tags } as unknown as JsonObject });
    });
  }

  async modelTags(name: string, api: string): Promise<IntegrationTag[]> {
    const record = recordOf(await this.row(name));
    const model = record.models.find((m) => m.api === api);
    if (!model) throw fail('INTEGRATION_MODEL_NOT_FOUND', { model: api, name });
    return model.tags ?? [];
  }

  async changeModelTags(name: string, api: string, body: unknown, change: 'add' | 'remove'): Promise<void> {
    const given = tagsOf(body);
    await this.updateModel(name, api, (m) => ({
      ...m,
      tags: change === 'add' ? mergeTags(m.tags, given) : removeTags(m.tags, given),
    }));
  }

  /** The prompts associated with a model, by name. */
  async modelPrompts(name: string, api: string): Promise<string[]> {
    const record = recordOf(await this.row(name));
    const model = record.models.find((m) => m.api === api);
    if (!model) throw fail('INTEGRATION_MODEL_NOT_FOUND', { model: api, name });
    return model.prompts ?? [];
  }

  async associatePrompt(name: string, api: string, prompt: string): Promise<void> {
    await this.updateModel(name, api, (m) => ({
      ...m,
      prompts: [...new Set([...(m.prompts ?? []), prompt])].sort(),
    }));
  }

  private async updateModel(
    name: string,
    api: string,
    change: (model: LlmModelRecord) => LlmModelRecord,
  ): Promise<void> {
    await this.store.transaction(async (tx) => {
      const row = await tx.getService(LLM_PROVIDER_ROW_PREFIX + name);
      if (!row) throw fail('INTEGRATION_PROVIDER_NOT_FOUND', { name });
      const record = recordOf(row);
      const model = record.models.find((m) => m.api === api);
      if (!model) throw fail('INTEGRATION_MODEL_NOT_FOUND', { model: api, name });
      const models = record.models.map((m) => (m.api === api ? change(m) : m));
      await tx.putService({ ...row, record: { ...record, models } as unknown as JsonObject });
    });
  }

  async deleteModel(name: string, api: string): Promise<void> {
    const now = this.clock.now();
    await this.store.transaction(async (tx) => {
      const row = await tx.getService(LLM_PROVIDER_ROW_PREFIX + name);
      if (!row) throw fail('INTEGRATION_PROVIDER_NOT_FOUND', { name });
      const record = recordOf(row);
      if (!record.models.some((m) => m.api === api))
        throw fail('INTEGRATION_MODEL_NOT_FOUND', { model: api, name });
      const models = record.models.filter((m) => m.api !== api);
      await tx.putService({
        ...row,
        record: { ...record, models } as unknown as JsonObject,
        updateTime: now,
      });
    });
  }
}

/** Why a provider cannot serve a model, or undefined when it can. */
export function refusal(
  record: LlmProviderRecord | undefined,
  provider: string,
  model: string,
): string | undefined {
  if (!record)
    return `no LLM provider named '${provider}' is configured (POST /api/integrations/provider/${provider})`;
  if (!record.enabled) return `LLM provider '${provider}' is disabled`;
  // A provider with models listed serves those only (as Conductor's integrations do); none listed: any.
  if (record.models.length > 0) {
    const entry = record.models.find((m) => m.api === model);
    if (!entry) return `model '${model}' is not configured on LLM provider '${provider}'`;
    if (!entry.enabled) return `model '${model}' is disabled on LLM provider '${provider}'`;
  }
  return undefined;
}
