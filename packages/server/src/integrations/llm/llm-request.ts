import type { JsonObject, JsonValue, ValidationError, WorkflowTask } from '@baton/protocol';

import { CallInputError } from '../call-failure.js';

/**
 * The inputs of Conductor's AI task kinds (its `ai/` module: `LLMWorkerInput`, `ChatCompletion`,
 * `TextCompletion`, `EmbeddingGenRequest`), read into one request the provider clients share.
 * Field names are Conductor's: `llmProvider` (or `integrationName`), `model`, `messages` of
 * `{role, message, toolCalls}`, `prompt`, `text`, `temperature`, `topP`, `maxTokens`,
 * `stopWords` (`stopSequences` accepted too), `tools` of `ToolSpec`, `jsonOutput`, `dimensions`.
 */

export type LlmTaskKind = 'LLM_CHAT_COMPLETE' | 'LLM_TEXT_COMPLETE' | 'LLM_GENERATE_EMBEDDINGS';

/** Conductor's `ChatMessage.Role`. */
export const CHAT_ROLES = ['system', 'user', 'assistant', 'tool_call', 'tool'] as const;
export type ChatRole = (typeof CHAT_ROLES)[number];

/** Conductor's `ToolCall`: what the model asked for, in the shape a workflow hands to a task. */
export interface LlmToolCall extends JsonObject {
  /** The provider's call id (Conductor puts it here too). */
  taskReferenceName: string;
  name: string;
  type: string;
  inputParameters: JsonObject;
  // Also `service`: the registered service that has the tool, when the task's `tools` named one.
}

export interface ChatTurn {
  role: ChatRole;
  message: string;
  toolCalls?: LlmToolCall[];
  /** For a `tool` answer: the id of the call it answers. */
  toolCallId?: string;
}

/** Conductor's `ToolSpec`, as sent to the model. */
export interface LlmTool {
  name: string;
  type: string;
  description?: string;
  inputSchema: JsonObject;
  /** The registered service that has it (an entry that named one; `registry-tools.ts`). */
  service?: string;
}

export interface LlmSampling {
  temperature?: number;
  topP?: number;
  topK?: number;
  maxTokens?: number;
  frequencyPenalty?: number;
  presencePenalty?: number;
  stop?: string[];
}

export interface ChatRequest extends LlmSampling {
  model: string;
  turns: ChatTurn[];
  tools: LlmTool[];
  jsonOutput: boolean;
  /** Ask the provider to stream the answer (server-sent events); the task's output is still the whole answer. */
  stream: boolean;
}

export interface EmbeddingsRequest {
  model: string;
  text: string[];
  dimensions?: number;
}

const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);
const hasExpression = (v: unknown): boolean => typeof v === 'string' && v.includes('${');

/** The provider a task names: Conductor's `llmProvider`, or its `integrationName`. */
export function providerOf(input: JsonObject): string | undefined {
  for (const field of ['llmProvider', 'integrationName'] as const) {
    const value = input[field];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

/**
 * Registration checks: the fields every run needs, when written literally (an expression is
 * checked when the call is made). A provider that is not configured yet is no error here:
 * Conductor's SDK registers AI workflows before any provider exists.
 */
export function checkLlmNode(kind: LlmTaskKind, node: WorkflowTask, path: string): ValidationError[] {
  const errors: ValidationError[] = [];
  const input = node.inputParameters ?? {};
  const at = (field: string): string => `${path}.inputParameters.${field}`;
  const need = (field: string, message: string): void => {
    const value = input[field];
    if (typeof value !== 'string' || value === '')
      errors.push({ path: at(field), message, invalidValue: value ?? null });
  };
  if (providerOf(input) === undefined)
    need('llmProvider', `${kind} needs llmProvider: the name of a configured LLM provider`);
  need('model', `${kind} needs model: the model to call (e.g. gpt-4o-mini)`);
  if (kind === 'LLM_CHAT_COMPLETE') {
    const messages = input.messages;
    if (messages !== undefined && !hasExpression(messages)) {
      if (!Array.isArray(messages))
        errors.push({
          path: at('messages'),
          message: 'messages must be a list of {role, message}',
          invalidValue: null,
        });
      else
        messages.forEach((m, i) => {
          if (hasExpression(m)) return;
          const role = isObject(m) ? m.role : undefined;
          if (!isObject(m) || (typeof role === 'string' && !hasExpression(role) && !isRole(role)))
            errors.push({
              path: at(`messages[${i}]`),
              message: `each message is {role, message} with role one of ${CHAT_ROLES.join(', ')}`,
              invalidValue: typeof role === 'string' ? role : null,
            });
        });
    }
    if (input.tools !== undefined && !hasExpression(input.tools) && !Array.isArray(input.tools))
      errors.push({
        path: at('tools'),
        message: 'tools must be a list of {name, description, inputSchema}',
        invalidValue: null,
      });
  }
  if (kind === 'LLM_TEXT_COMPLETE' && input.prompt === undefined)
    errors.push({ path: at('prompt'), message: 'LLM_TEXT_COMPLETE needs prompt', invalidValue: null });
  if (kind === 'LLM_GENERATE_EMBEDDINGS' && input.text === undefined)
    errors.push({ path: at('text'), message: 'LLM_GENERATE_EMBEDDINGS needs text', invalidValue: null });
  for (const field of ['temperature', 'topP', 'maxTokens', 'topK', 'dimensions'] as const) {
    const value = input[field];
    if (value !== undefined && value !== null && typeof value !== 'number' && !hasExpression(value))
      errors.push({ path: at(field), message: `${field} must be a number`, invalidValue: value });
  }
  return errors;
}

function isRole(value: string): value is ChatRole {
  return (CHAT_ROLES as readonly string[]).includes(value);
}

function text(value: JsonValue | undefined): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function num(input: JsonObject, field: string): number | undefined {
  const value = input[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)))
    return Number(value);
  throw new CallInputError(`${field} must be a number, got ${JSON.stringify(value).slice(0, 100)}`);
}

function sampling(input: JsonObject): LlmSampling {
  const out: LlmSampling = {};
  for (const field of [
    'temperature',
    'topP',
    'topK',
    'maxTokens',
    'frequencyPenalty',
    'presencePenalty',
  ] as const) {
    const value = num(input, field);
    if (value !== undefined) out[field] = value;
  }
  const stop = input.stopWords ?? input.stopSequences;
  if (Array.isArray(stop) && stop.length > 0) out.stop = stop.map((s) => text(s));
  return out;
}

function model(input: JsonObject): string {
  const value = input.model;
  if (typeof value !== 'string' || value === '') throw new CallInputError('model is required');
  return value;
}

/** Conductor's ToolCall as a workflow hands it back (the input of a `tool_call` turn). */
function toolCallOf(value: JsonValue): LlmToolCall {
  const call = isObject(value) ? value : {};
  const params = isObject(call.inputParameters) ? call.inputParameters : {};
  return {
    taskReferenceName: text(call.taskReferenceName ?? call.id ?? null),
    name: text(call.name ?? null),
    type: typeof call.type === 'string' ? call.type : 'SIMPLE',
    inputParameters: params,
  };
}

function turnsOf(input: JsonObject): ChatTurn[] {
  const turns: ChatTurn[] = [];
  const instructions = input.instructions;
  if (typeof instructions === 'string' && instructions !== '')
    turns.push({ role: 'system', message: instructions });
  const messages = input.messages;
  if (messages !== undefined && messages !== null && !Array.isArray(messages))
    throw new CallInputError('messages must be a list of {role, message}');
  for (const [i, m] of (messages ?? []).entries()) {
    if (!isObject(m)) throw new CallInputError(`messages[${i}] must be an object {role, message}`);
    const role = m.role;
    if (typeof role !== 'string' || !isRole(role))
      throw new CallInputError(`messages[${i}].role must be one of ${CHAT_ROLES.join(', ')}`);
    const message = text(m.message ?? m.content ?? null);
    if (
      role === 'tool' &&
      Array.isArray(m.toolCalls) &&
      m.toolCalls.length > 0 &&
      (message === '' || m.toolCalls.length > 1)
    ) {
      // Conductor's form: one tool message whose toolCalls carry each call's `output`.
      for (const raw of m.toolCalls) {
        const call = toolCallOf(raw);
        const output = isObject(raw) ? raw.output : undefined;
        turns.push({
          role,
          message: output === undefined || output === null ? message : text(output),
          toolCallId: call.taskReferenceName,
        });
      }
      continue;
    }
    const turn: ChatTurn = { role, message };
    if (Array.isArray(m.toolCalls)) turn.toolCalls = m.toolCalls.map(toolCallOf);
    const answers = m.toolCallId ?? m.taskReferenceName;
    if (typeof answers === 'string') turn.toolCallId = answers;
    else if (role === 'tool' && turn.toolCalls?.[0]) turn.toolCallId = turn.toolCalls[0].taskReferenceName;
    turns.push(turn);
  }
  const userInput = input.userInput ?? input.prompt;
  if (typeof userInput === 'string' && userInput !== '') turns.push({ role: 'user', message: userInput });
  if (turns.length === 0)
    throw new CallInputError('messages (or prompt/userInput) is required: nothing to send');
  return turns;
}

function toolsOf(input: JsonObject): LlmTool[] {
  const tools = input.tools;
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools))
    throw new CallInputError('tools must be a list of {name, description, inputSchema}');
  return tools.map((t, i) => {
    if (!isObject(t) || typeof t.name !== 'string' || t.name === '')
      throw new CallInputError(`tools[${i}] needs a name`);
    const tool: LlmTool = {
      name: t.name,
      type: typeof t.type === 'string' ? t.type : 'SIMPLE',
      inputSchema: isObject(t.inputSchema) ? t.inputSchema : { type: 'object', properties: {} },
    };
    if (typeof t.description === 'string') tool.description = t.description;
    const params = t.configParams;
    if (isObject(params) && typeof params.service === 'string') tool.service = params.service;
    return tool;
  });
}

/** LLM_CHAT_COMPLETE's input as a chat; LLM_TEXT_COMPLETE's `prompt` as one user turn. */
export function chatRequestOf(kind: LlmTaskKind, input: JsonObject): ChatRequest {
  if (kind === 'LLM_TEXT_COMPLETE') {
    const prompt = text(input.prompt ?? null);
    if (prompt === '') throw new CallInputError('prompt is required');
    return {
      model: model(input),
      turns: [{ role: 'user', message: prompt }],
      tools: [],
      jsonOutput: input.jsonOutput === true,
      stream: input.stream === true,
      ...sampling(input),
    };
  }
  return {
    model: model(input),
    turns: turnsOf(input),
    tools: toolsOf(input),
    jsonOutput: input.jsonOutput === true,
    stream: input.stream === true,
    ...sampling(input),
  };
}

export function embeddingsRequestOf(input: JsonObject): EmbeddingsRequest {
  const value = input.text;
  const texts = Array.isArray(value) ? value.map((v) => text(v)) : [text(value ?? null)];
  if (texts.length === 0 || texts.every((t) => t === '')) throw new CallInputError('text is required');
  const out: EmbeddingsRequest = { model: model(input), text: texts };
  const dimensions = num(input, 'dimensions');
  if (dimensions !== undefined) out.dimensions = dimensions;
  return out;
}
