import type { JsonObject } from '@baton/protocol';

import type { Clock } from '../../clock.js';
import { fail } from '../../errors.js';
import type { Store, StoredService } from '../../store/store.js';
import { type IntegrationTag, mergeTags, removeTags, tagsOf } from '../llm/integration-tags.js';
import { checkName } from '../llm/llm-providers.js';

/**
 * Prompt templates, as Orkes' prompt registry keeps them (`/api/prompts/{name}`, a
 * `MessageTemplate`): a name, a description, the template text and the models it is meant for.
 * Baton keeps them so a prompt can be associated with an integration's model; its AI tasks take
 * their prompt text in the task input.
 *
 * Records live in the service registry's table under a name no registry service can take
 * (`prompt:` + name), like the LLM providers, so they need no schema of their own.
 */

export const PROMPT_ROW_PREFIX = 'prompt:';
export const isPromptRow = (name: string): boolean => name.startsWith(PROMPT_ROW_PREFIX);

const MAX_TEMPLATE = 65_536;
const MAX_DESCRIPTION = 4096;

interface PromptRecord {
  name: string;
  description: string;
  template: string;
  /** The models it is meant for, as `provider:model` (Orkes' `models` / `integrations`). */
  integrations: string[];
  version: number;
  tags?: IntegrationTag[];
}

/** The `${name}` placeholders of a template, in order of first use. */
function variablesOf(template: string): string[] {
  return [...new Set([...template.matchAll(/\$\{([^}]+)\}/g)].map((m) => m[1] ?? ''))];
}

function answerOf(record: PromptRecord, row: Pick<StoredService, 'createTime' | 'updateTime'>): JsonObject {
  return {
    name: record.name,
    description: record.description,
    template: record.template,
    variables: variablesOf(record.template),
    integrations: record.integrations,
    version: record.version,
    tags: record.tags ?? [],
    createTime: row.createTime,
    updateTime: row.updateTime,
  };
}

const recordOf = (row: StoredService): PromptRecord => row.record as unknown as PromptRecord;

export class PromptService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  async exists(name: string): Promise<boolean> {
    return (await this.store.read((tx) => tx.getService(PROMPT_ROW_PREFIX + name))) !== undefined;
  }

  async get(name: string): Promise<JsonObject> {
    const row = await this.store.read((tx) => tx.getService(PROMPT_ROW_PREFIX + name));
    if (!row) throw fail('PROMPT_NOT_FOUND', { name });
    return answerOf(recordOf(row), row);
  }

  /** The prompts of these names that exist, in the order given (a removed prompt is left out). */
  async some(names: string[]): Promise<JsonObject[]> {
    const rows = await this.store.read((tx) =>
      Promise.all(names.map((name) => tx.getService(PROMPT_ROW_PREFIX + name))),
    );
    return rows.flatMap((row) => (row ? [answerOf(recordOf(row), row)] : []));
  }

  async list(): Promise<JsonObject[]> {
    const rows = await this.store.read((tx) => tx.listServices());
    return rows.filter((row) => isPromptRow(row.name)).map((row) => answerOf(recordOf(row), row));
  }

  /** Adds or replaces a prompt; each save is the next version. */
  async put(
    name: string,
    input: { template: unknown; description?: string; models?: string[] },
  ): Promise<void> {
    checkName(name, 'name');
    const template = input.template;
    if (typeof template !== 'string' || template === '' || template.length > MAX_TEMPLATE)
      throw fail('PROMPT_INVALID', {}, [
        { path: 'body', message: `the template text, 1 to ${MAX_TEMPLATE} characters`, invalidValue: null },
      ]);
    if (input.description !== undefined && input.description.length > MAX_DESCRIPTION)
      throw fail('PROMPT_INVALID', {}, [
        { path: 'description', message: `at most ${MAX_DESCRIPTION} characters`, invalidValue: null },
      ]);
    const now = this.clock.now();
    await this.store.transaction(async (tx) => {
      const previous = await tx.getService(PROMPT_ROW_PREFIX + name);
      const record: PromptRecord = {
        name,
        description: input.description ?? '',
        template,
        integrations: input.models ?? [],
        version: previous ? recordOf(previous).version + 1 : 1,
        ...(previous && recordOf(previous).tags !== undefined && { tags: recordOf(previous).tags }),
      };
      await tx.putService({
        name: PROMPT_ROW_PREFIX + name,
        record: record as unknown as JsonObject,
        createTime: previous?.createTime ?? now,
        updateTime: now,
      });
    });
  }

  async tags(name: string): Promise<IntegrationTag[]> {
    const row = await this.store.read((tx) => tx.getService(PROMPT_ROW_PREFIX + name));
    if (!row) throw fail('PROMPT_NOT_FOUND', { name });
    return recordOf(row).tags ?? [];
  }

  /** Adds tags (one with the same key and value is kept once) or removes those matching. */
  async changeTags(name: string, body: unknown, change: 'add' | 'remove'): Promise<void> {
    const given = tagsOf(body);
    await this.store.transaction(async (tx) => {
      const row = await tx.getService(PROMPT_ROW_PREFIX + name);
      if (!row) throw fail('PROMPT_NOT_FOUND', { name });
      const record = recordOf(row);
      const tags = change === 'add' ? mergeTags(record.tags, given) : removeTags(record.tags, given);
      await tx.putService({ ...row, record: { ...record, tags } });
    });
  }

  async delete(name: string): Promise<void> {
    if (!(await this.store.transaction((tx) => tx.deleteService(PROMPT_ROW_PREFIX + name))))
      throw fail('PROMPT_NOT_FOUND', { name });
  }
}
