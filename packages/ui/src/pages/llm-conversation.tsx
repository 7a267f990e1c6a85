import type { TaskRecord } from '../api/types';
import { pretty } from '../format';

/**
 * An LLM task (LLM_CHAT_COMPLETE, LLM_TEXT_COMPLETE, LLM_GENERATE_EMBEDDINGS) as people read it:
 * the provider and model, the messages sent by role (tool calls and tool answers included), the
 * answer with its finish reason, the tool calls it asked for, and the tokens it used. The raw
 * input and output stay below it as JSON.
 */

const LLM_TYPES = new Set(['LLM_CHAT_COMPLETE', 'LLM_TEXT_COMPLETE', 'LLM_GENERATE_EMBEDDINGS']);

interface ToolCallView {
  id: string;
  name: string;
  args: unknown;
}

interface MessageView {
  role: string;
  text: string;
  toolCalls: ToolCallView[];
  answers?: string;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);
const textOf = (v: unknown): string =>
  v === undefined || v === null ? '' : typeof v === 'string' ? v : pretty(v);

function toolCallsOf(value: unknown): ToolCallView[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isObject).map((c) => {
    const params = isObject(c.inputParameters) ? { ...c.inputParameters } : {};
    delete params.method;
    return { id: textOf(c.taskReferenceName), name: textOf(c.name), args: params };
  });
}

function messagesOf(task: TaskRecord): MessageView[] {
  const input = task.inputData;
  const out: MessageView[] = [];
  if (typeof input.instructions === 'string' && input.instructions !== '')
    out.push({ role: 'system', text: input.instructions, toolCalls: [] });
  if (Array.isArray(input.messages))
    for (const m of input.messages) {
      if (!isObject(m)) continue;
      const view: MessageView = {
        role: textOf(m.role) || '?',
        text: textOf(m.message ?? m.content),
        toolCalls: toolCallsOf(m.toolCalls),
      };
      if (typeof m.toolCallId === 'string') view.answers = m.toolCallId;
      out.push(view);
    }
  else if (typeof input.messages === 'string')
    out.push({ role: 'messages', text: input.messages, toolCalls: [] });
  for (const field of ['prompt', 'userInput', 'text'] as const) {
    const v = input[field];
    if (v !== undefined && v !== null && v !== '')
      out.push({ role: field === 'text' ? 'text' : 'user', text: textOf(v), toolCalls: [] });
  }
  return out;
}

function ToolCalls({ calls }: { calls: ToolCallView[] }) {
  return (
    <ul className="llm-tool-calls">
      {calls.map((c, i) => (
        <li key={`${c.id}-${i}`}>
          <span className="mono llm-tool-name">{c.name}</span>
          {c.id && <span className="muted small"> · {c.id}</span>}
          <pre className="json">{pretty(c.args)}</pre>
        </li>
      ))}
    </ul>
  );
}

export function isLlmTask(task: TaskRecord): boolean {
  return LLM_TYPES.has(task.taskType) || LLM_TYPES.has(textOf(task.workflowTask.type));
}

export function LlmConversation({ task }: { task: TaskRecord }) {
  const input = task.inputData;
  const output = task.outputData;
  const messages = messagesOf(task);
  const toolCalls = toolCallsOf(output.toolCalls);
  const result = output.result;
  const embeddings = task.taskType === 'LLM_GENERATE_EMBEDDINGS';
  const tokens = typeof output.tokenUsed === 'number' ? output.tokenUsed : undefined;
  return (
    <section className="llm-conversation" data-testid="llm-conversation">
      <h3>Conversation</h3>
      <div className="muted small">
        <span className="mono">{textOf(input.llmProvider ?? input.integrationName)}</span> ·{' '}
        <span className="mono">{textOf(input.model)}</span>
        {tokens !== undefined && (
          <span data-testid="llm-tokens">
            {' '}
            · {tokens} tokens ({textOf(output.promptTokens) || 0} prompt,{' '}
            {textOf(output.completionTokens) || 0} completion)
          </span>
        )}
      </div>
      <ol className="llm-messages">
        {messages.map((m, i) => (
          <li key={i} className={`llm-message llm-role-${m.role.replace(/[^a-z_]/gi, '')}`}>
            <div className="llm-role">
              {m.role}
              {m.answers && <span className="muted small"> · answers {m.answers}</span>}
            </div>
            {m.text && <div className="llm-text">{m.text}</div>}
            {m.toolCalls.length > 0 && <ToolCalls calls={m.toolCalls} />}
          </li>
        ))}
        {(result !== undefined || toolCalls.length > 0) && (
          <li className="llm-message llm-role-answer" data-testid="llm-answer">
            <div className="llm-role">
              answer
              {typeof output.finishReason === 'string' && (
                <span className="muted small"> · {output.finishReason}</span>
              )}
            </div>
            {embeddings ? (
              <div className="llm-text muted">
                {Array.isArray(result) ? `${result.length} numbers` : textOf(result)}
              </div>
            ) : (
              result !== undefined && result !== '' && <div className="llm-text">{textOf(result)}</div>
            )}
            {toolCalls.length > 0 && <ToolCalls calls={toolCalls} />}
          </li>
        )}
      </ol>
    </section>
  );
}
