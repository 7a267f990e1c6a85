/**
 * Task kinds Baton knows by name (Conductor's `TaskType` plus the interface's own kinds).
 * Which of them the server can run is decided by the engine's kind registry; a known
 * kind the registry does not implement is refused at registration with a clear message.
 */
export const TASK_KINDS = [
  'SIMPLE',
  'DYNAMIC',
  'FORK_JOIN',
  'FORK_JOIN_DYNAMIC',
  'DECISION',
  'SWITCH',
  'JOIN',
  'EXCLUSIVE_JOIN',
  'DO_WHILE',
  'SUB_WORKFLOW',
  'START_WORKFLOW',
  'EVENT',
  'WAIT',
  'HUMAN',
  'HTTP',
  'LAMBDA',
  'INLINE',
  'TERMINATE',
  'JSON_JQ_TRANSFORM',
  'SET_VARIABLE',
  'NOOP',
  'PULL_WORKFLOW_MESSAGES',
  'CALL_TOOL',
  'LIST_TOOLS',
  // Conductor's names of the two tool kinds (its AI module), run as CALL_TOOL and LIST_TOOLS.
  'CALL_MCP_TOOL',
  'LIST_MCP_TOOLS',
  'CONNECTOR',
  'DOCUMENT_INTELLIGENCE',
  // Conductor's AI module: model calls on a configured LLM provider.
  'LLM_CHAT_COMPLETE',
  'LLM_TEXT_COMPLETE',
  'LLM_GENERATE_EMBEDDINGS',
  'KAFKA_PUBLISH',
  'USER_DEFINED',
] as const;
export type TaskKind = (typeof TASK_KINDS)[number];

const KIND_SET: ReadonlySet<string> = new Set(TASK_KINDS);
export function isTaskKind(value: string): value is TaskKind {
  return KIND_SET.has(value);
}
