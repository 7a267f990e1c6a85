/**
 * Names of the system-call kinds and their internal queues (a leaf module: the definition
 * graph and the kinds both read it). See `system-call.ts`.
 */

/** Prefix of the internal queues; no worker task type may start with it (`_` is reserved). */
export const SYSTEM_QUEUE_PREFIX = '_system-';

/**
 * Wake-up name sent (in-process and to every node) when an open system call is ended by
 * someone other than the executor holding it (terminate, a timeout, skip): executors look at
 * their calls in flight at once instead of at their next periodic check.
 */
export const SYSTEM_CALL_ENDED_WAKE = '_system-call-ended';

/** The normalised kinds, each with the type names that mean it (Conductor's names included). */
export const SYSTEM_CALL_KINDS = {
  HTTP: ['HTTP'],
  CALL_TOOL: ['CALL_TOOL', 'CALL_MCP_TOOL'],
  LIST_TOOLS: ['LIST_TOOLS', 'LIST_MCP_TOOLS'],
  CONNECTOR: ['CONNECTOR'],
  DOCUMENT_INTELLIGENCE: ['DOCUMENT_INTELLIGENCE'],
  LLM_CHAT_COMPLETE: ['LLM_CHAT_COMPLETE'],
  LLM_TEXT_COMPLETE: ['LLM_TEXT_COMPLETE'],
  LLM_GENERATE_EMBEDDINGS: ['LLM_GENERATE_EMBEDDINGS'],
} as const satisfies Record<string, readonly string[]>;

export type SystemCallKind = keyof typeof SYSTEM_CALL_KINDS;

const KIND_BY_TYPE: ReadonlyMap<string, SystemCallKind> = new Map(
  (Object.entries(SYSTEM_CALL_KINDS) as Array<[SystemCallKind, readonly string[]]>).flatMap(([kind, types]) =>
    types.map((type): [string, SystemCallKind] => [type, kind]),
  ),
);

/** The normalised kind of a node's `type` (`CALL_MCP_TOOL` → `CALL_TOOL`), or undefined. */
export function systemCallKindOf(type: unknown): SystemCallKind | undefined {
  return typeof type === 'string' ? KIND_BY_TYPE.get(type) : undefined;
}

/** `_system-HTTP`: the internal queue of a kind. */
export function systemQueueName(kind: SystemCallKind): string {
  return `${SYSTEM_QUEUE_PREFIX}${kind}`;
}

export function isSystemQueue(queueName: string | undefined): boolean {
  return queueName !== undefined && queueName.startsWith(SYSTEM_QUEUE_PREFIX);
}
