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

/**
 * A field of a definition node that holds nested task lists, and how: `cases` is a map of
 * lists (`decisionCases`), `list` one list (`defaultCase`, `loopOver`), `branches` a list of
 * lists (`forkTasks`).
 */
export interface ChildListField {
  readonly field: string;
  readonly form: 'cases' | 'list' | 'branches';
}

/**
 * How the diagram draws a node of the kind and what follows it: `step` one box then the next
 * task; `cases` one way per case and the default; `fork` one way per branch; `dynamic-fork` one
 * way per task the run forked; `loop` the body with a way back; `join` one box that tells what
 * it still waits on; `end` nothing follows (the run ends there).
 */
export type DiagramShape = 'step' | 'cases' | 'fork' | 'dynamic-fork' | 'loop' | 'join' | 'end';

/** The SDK's builder of a node of the kind: its export name and its parameter names, in order. */
export interface TaskBuilderInfo {
  readonly name: string;
  readonly params: readonly string[];
}

/**
 * What the server, the SDK and the UI all say about one kind, kept in one place: the engine's
 * definition walker reads `childLists`, the UI diagram `label` and `shape`, the SDK its builders
 * (a test checks each builder exists with these parameters).
 */
export interface TaskKindInfo {
  /** How people see the kind (the diagram's box caption). */
  readonly label: string;
  readonly shape: DiagramShape;
  /** The nested task lists a node of the kind holds; empty for a plain step. */
  readonly childLists: readonly ChildListField[];
  /** The SDK builder; absent for a kind this server does not run. */
  readonly builder?: TaskBuilderInfo;
}

const step = (label: string, builder: string, ...params: string[]): TaskKindInfo => ({
  label,
  shape: 'step',
  childLists: [],
  builder: { name: builder, params: ['ref', ...params] },
});

/** The parameters of the SDK's `systemTask`, which builds every system-call kind. */
const SYSTEM_TASK_PARAMS = ['type', 'inputParameters'] as const;
const systemCall = (label: string): TaskKindInfo => step(label, 'systemTask', ...SYSTEM_TASK_PARAMS);

const CASES: readonly ChildListField[] = [
  { field: 'decisionCases', form: 'cases' },
  { field: 'defaultCase', form: 'list' },
];

/**
 * Every kind's description. The order of container kinds is the order the definition walker
 * visits a node's lists in (cases, then fork branches, then a loop's body).
 */
export const TASK_KIND_INFO: { readonly [K in TaskKind]: TaskKindInfo } = {
  DECISION: {
    label: 'decision',
    shape: 'cases',
    childLists: CASES,
    builder: {
      name: 'decisionTask',
      params: ['ref', 'caseValueParam', 'decisionCases', 'defaultCase', 'inputParameters'],
    },
  },
  SWITCH: {
    label: 'switch',
    shape: 'cases',
    childLists: CASES,
    builder: {
      name: 'switchTask',
      params: ['ref', 'expression', 'decisionCases', 'defaultCase', 'inputParameters'],
    },
  },
  FORK_JOIN: {
    label: 'fork',
    shape: 'fork',
    childLists: [{ field: 'forkTasks', form: 'branches' }],
    builder: { name: 'forkJoin', params: ['ref', 'branches'] },
  },
  DO_WHILE: {
    label: 'loop',
    shape: 'loop',
    childLists: [{ field: 'loopOver', form: 'list' }],
    builder: { name: 'doWhile', params: ['ref', 'loopCondition', 'loopOver', 'inputParameters'] },
  },
  FORK_JOIN_DYNAMIC: {
    label: 'dynamic fork',
    shape: 'dynamic-fork',
    childLists: [],
    builder: { name: 'dynamicFork', params: ['ref', 'forkTaskName', 'forkTaskInputs', 'inputParameters'] },
  },
  JOIN: { ...step('join', 'join', 'joinOn'), shape: 'join' },
  EXCLUSIVE_JOIN: {
    ...step('exclusive join', 'exclusiveJoin', 'joinOn', 'defaultExclusiveJoinTask'),
    shape: 'join',
  },
  TERMINATE: { ...step('terminate', 'terminate', 'status', 'reason'), shape: 'end' },
  SIMPLE: step('worker', 'simpleTask', 'name', 'inputParameters', 'extra'),
  USER_DEFINED: step('user defined', 'userDefinedTask', 'type', 'inputParameters', 'extra'),
  DYNAMIC: step('dynamic', 'dynamicTask', 'taskName', 'inputParameters'),
  SUB_WORKFLOW: step('sub-workflow', 'subWorkflow', 'name', 'version', 'inputParameters'),
  START_WORKFLOW: step('start workflow', 'startWorkflow', 'name', 'version', 'input'),
  EVENT: step('event', 'eventTask', 'sink', 'inputParameters'),
  WAIT: step('wait', 'waitTask', 'duration'),
  HUMAN: step('human', 'humanTask', 'assignee', 'inputParameters'),
  HTTP: step('http', 'httpTask', 'http_request'),
  LAMBDA: step('lambda', 'lambdaTask', 'scriptExpression', 'inputParameters'),
  INLINE: step('inline', 'inlineTask', 'expression', 'inputParameters'),
  JSON_JQ_TRANSFORM: step('json jq transform', 'jqTransform', 'queryExpression', 'inputParameters'),
  SET_VARIABLE: step('set variable', 'setVariable', 'variables'),
  NOOP: step('noop', 'noopTask'),
  PULL_WORKFLOW_MESSAGES: step('pull workflow messages', 'pullWorkflowMessages', 'inputParameters'),
  CALL_TOOL: systemCall('call tool'),
  LIST_TOOLS: systemCall('list tools'),
  CALL_MCP_TOOL: systemCall('call mcp tool'),
  LIST_MCP_TOOLS: systemCall('list mcp tools'),
  CONNECTOR: systemCall('connector'),
  DOCUMENT_INTELLIGENCE: systemCall('document intelligence'),
  LLM_CHAT_COMPLETE: systemCall('llm chat complete'),
  LLM_TEXT_COMPLETE: systemCall('llm text complete'),
  LLM_GENERATE_EMBEDDINGS: systemCall('llm generate embeddings'),
  // Not run by this server (refused at registration), so the SDK builds none.
  KAFKA_PUBLISH: { label: 'kafka publish', shape: 'step', childLists: [] },
};

/** The description of a kind by its `type` string; undefined for a type that is no known kind. */
export function taskKindInfo(type: string): TaskKindInfo | undefined {
  return isTaskKind(type) ? TASK_KIND_INFO[type] : undefined;
}

/** Every field any kind keeps nested lists in, each once, in the order the walker visits them. */
export const CHILD_LIST_FIELDS: readonly ChildListField[] = [
  ...new Map(
    Object.values(TASK_KIND_INFO)
      .flatMap((info) => info.childLists)
      .map((list): [string, ChildListField] => [list.field, list]),
  ).values(),
];
