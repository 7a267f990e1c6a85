import { namedFields } from './field-lists.js';
import type { JsonObject } from './json.js';

/**
 * Event handlers (`/api/event`, Conductor's `EventHandler`): the bodies the server takes and
 * answers. The field lists are checked against the types by TypeScript and against the
 * server's OpenAPI document by a test.
 */

export const EVENT_ACTION_KINDS = [
  'start_workflow',
  'complete_task',
  'fail_task',
  'terminate_workflow',
  'update_workflow_variables',
] as const;
export type EventActionKind = (typeof EVENT_ACTION_KINDS)[number];

/** One thing a handler does with a message; its parameters sit under the action's name. */
export interface EventAction {
  action: EventActionKind;
  start_workflow?: JsonObject;
  complete_task?: JsonObject;
  fail_task?: JsonObject;
  terminate_workflow?: JsonObject;
  update_workflow_variables?: JsonObject;
  /** Conductor's flag: JSON text inside the message is parsed before `${…}` resolves. */
  expandInlineJSON?: boolean;
}

/** Conductor's EventHandler: what to do with each message of an event (`amqp:orders`). */
export interface EventHandler {
  name: string;
  /** `<source>:<queue or subject>`: `baton:`, `amqp:` or `nats:`. */
  event: string;
  /** A script over the message (`$`); absent = always. */
  condition?: string;
  evaluatorType?: string;
  actions: EventAction[];
  active?: boolean;
  description?: string;
  [extra: string]: unknown;
}

/** Every named field of `EventHandler`. */
export const EVENT_HANDLER_FIELDS = namedFields<EventHandler>()([
  'name',
  'event',
  'condition',
  'evaluatorType',
  'actions',
  'active',
  'description',
]);

/** Every field of `EventAction`. */
export const EVENT_ACTION_FIELDS = namedFields<EventAction>()([
  'action',
  'start_workflow',
  'complete_task',
  'fail_task',
  'terminate_workflow',
  'update_workflow_variables',
  'expandInlineJSON',
]);

export type EventExecutionStatus = 'COMPLETED' | 'FAILED' | 'SKIPPED';

/** `GET /api/event/executions`: what a handler did with one message (one action). */
export interface EventExecution {
  id: string;
  messageId: string;
  /** The handler's name. */
  name: string;
  event: string;
  created: number;
  status: EventExecutionStatus;
  /** The action's kind (`unknown` when the handler had no action at that index). */
  action: string;
  output: JsonObject;
}
