import type { TaskRecord } from '@baton/protocol';

import { systemCallKindOf } from '../engine/index.js';

/**
 * What a system call does, in a few words for people (`waitingFor`, logs): `POST https://…`,
 * `tool search on docs`, `document analysis`. Read from the task's stored input, where secret
 * placeholders are still placeholders, so nothing secret is shown.
 */
export function describeCall(task: Pick<TaskRecord, 'inputData' | 'workflowTask' | 'taskType'>): string {
  const input = task.inputData;
  const text = (value: unknown): string | undefined =>
    typeof value === 'string' && value !== '' ? value : undefined;
  switch (systemCallKindOf(task.workflowTask.type)) {
    case 'HTTP': {
      const nested = input.http_request;
      const req = typeof nested === 'object' && nested !== null && !Array.isArray(nested) ? nested : input;
      return `${(text(req.method) ?? 'HTTP').toUpperCase()} ${text(req.uri) ?? '(no uri)'}`;
    }
    case 'CALL_TOOL': {
      const tool = text(input.tool) ?? text(input.method) ?? '(no tool)';
      const service = text(input.service) ?? text(input.mcpServer);
      return service ? `tool ${tool} on ${service}` : `tool ${tool}`;
    }
    case 'LIST_TOOLS': {
      const service = text(input.service) ?? text(input.mcpServer);
      return service ? `tool list of ${service}` : 'tool list';
    }
    case 'CONNECTOR':
      return `${text(input.connector) ?? 'connector'} operation ${text(input.operation) ?? '(none)'}`;
    case 'DOCUMENT_INTELLIGENCE':
      return 'document analysis';
    case 'LLM_CHAT_COMPLETE':
    case 'LLM_TEXT_COMPLETE':
    case 'LLM_GENERATE_EMBEDDINGS': {
      const what = task.workflowTask.type === 'LLM_GENERATE_EMBEDDINGS' ? 'embeddings' : 'completion';
      return `${what} of ${text(input.model) ?? '(no model)'} on ${text(input.llmProvider) ?? text(input.integrationName) ?? '(no provider)'}`;
    }
    case undefined:
      return task.taskType;
  }
}
