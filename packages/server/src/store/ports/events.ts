import type { JsonObject, ScheduleExecutionState } from '@baton/protocol';

import type { PortAccess } from './access.js';

/**
 * The part of the `Tx` port that holds event handlers, their inbox and executions, the outbox,
 * schedules and their slots, and instruction texts (`Tx.events`). One implementation,
 * `events-tx.ts`, runs on both dialects: these tables are plain keyed rows with JSON bodies, so
 * the statements are the same text (`$n` parameters, JSON as text).
 */

/** The wake-bus name the outbox relay waits on: woken (on every node) after a commit that wrote to the outbox. */
export const OUTBOX_WAKE = 'baton-outbox';

export interface StoredEventHandler {
  name: string;
  /** `<source>:<queue or subject>`. */
  event: string;
  active: boolean;
  /** The whole handler as registered (Conductor's EventHandler). */
  handler: JsonObject;
  createTime: number;
  updateTime: number;
}

export interface EventExecutionRow {
  id: string;
  handler: string;
  messageId: string;
  created: number;
  /** Conductor's EventExecution. */
  record: JsonObject;
}

export interface OutboxEntry {
  /** Where it goes: `baton:<queue>`, `amqp:<queue>`, `nats:<subject>`. */
  sink: string;
  /** Stable id: a consumer recognises a re-sent event by it. */
  messageId: string;
  payload: JsonObject;
  createdAt: number;
}

export interface StoredOutboxEntry extends OutboxEntry {
  /** Order of writing; the relay sends in this order. */
  seq: number;
}

export interface StoredSchedule {
  name: string;
  workflowName: string;
  paused: boolean;
  /** Conductor's WorkflowSchedule. */
  record: JsonObject;
  createTime: number;
  updateTime: number;
}

/** The state of a schedule's slot: the wire type's. */
export type { ScheduleExecutionState };

export interface ScheduleExecutionRow {
  executionId: string;
  scheduleName: string;
  /** The slot (epoch ms). */
  scheduledTime: number;
  executionTime: number;
  state: ScheduleExecutionState;
  /** `{workflowId?, reason?, workflowName, zoneId, startWorkflowRequest}`. */
  record: JsonObject;
}

export interface InstructionRow {
  name: string;
  version: number;
  text: string;
  contentType: string;
  createTime: number;
}

export interface Page<T> {
  totalHits: number;
  results: T[];
}

export interface EventsTx {
  // --- event handlers
  /** false (and nothing written) when the name exists. Bumps the handlers' change counter. */
  insertEventHandler(handler: StoredEventHandler): Promise<boolean>;
  /** false when the name does not exist. Bumps the change counter. */
  updateEventHandler(handler: StoredEventHandler): Promise<boolean>;
  getEventHandler(name: string): Promise<StoredEventHandler | undefined>;
  listEventHandlers(): Promise<StoredEventHandler[]>;
  deleteEventHandler(name: string): Promise<boolean>;
  /** Changes on every handler write on any node: a node re-reads its handlers when it moves. */
  eventHandlersVersion(): Promise<number>;

  // --- inbox (exactly-once effect of a consumed message)
  /** Records that `messageId` from `source` was acted on; false when it already was. */
  claimInbox(source: string, messageId: string, now: number): Promise<boolean>;
  pruneInbox(before: number): Promise<number>;

  // --- event executions
  insertEventExecutions(rows: readonly EventExecutionRow[]): Promise<void>;
  /** Newest first; all handlers when `handler` is undefined. */
  listEventExecutions(
    handler: string | undefined,
    start: number,
    size: number,
  ): Promise<Page<EventExecutionRow>>;
  pruneEventExecutions(before: number): Promise<number>;

  // --- outbox
  appendOutbox(entries: readonly OutboxEntry[]): Promise<void>;
  /**
   * Takes (or keeps) the relay's lease until `now + leaseMs` for `holder`: true when held.
   * Only the holder relays, so events leave in the order they were written.
   */
  takeRelayLease(holder: string, now: number, leaseMs: number): Promise<boolean>;
  releaseRelayLease(holder: string): Promise<void>;
  /** The oldest `limit` entries, in seq order. */
  readOutbox(limit: number): Promise<StoredOutboxEntry[]>;
  deleteOutbox(seqs: readonly number[]): Promise<void>;
  outboxSize(): Promise<number>;

  // --- schedules
  upsertSchedule(schedule: StoredSchedule): Promise<void>;
  getSchedule(name: string): Promise<StoredSchedule | undefined>;
  listSchedules(workflowName?: string): Promise<StoredSchedule[]>;
  deleteSchedule(name: string): Promise<boolean>;
  /** Claims a slot: false (nothing written) when that schedule's slot is already taken. */
  claimScheduleSlot(row: ScheduleExecutionRow): Promise<boolean>;
  /** Newest first; all schedules when `scheduleName` is undefined. */
  listScheduleExecutions(
    scheduleName: string | undefined,
    start: number,
    size: number,
  ): Promise<Page<ScheduleExecutionRow>>;
  /** The latest claimed slot of a schedule (catch-up starts after it). */
  lastScheduledTime(scheduleName: string): Promise<number | undefined>;
  /**
   * Deletes up to `limit` executions that ran before `before`, oldest first, but never a
   * schedule's latest slot (what `lastScheduledTime` answers); answers how many went.
   */
  pruneScheduleExecutions(before: number, limit: number): Promise<number>;

  // --- instruction texts
  /** false when that name and version exist. */
  insertInstruction(row: InstructionRow): Promise<boolean>;
  /** The given version, or the latest. */
  getInstruction(name: string, version?: number): Promise<InstructionRow | undefined>;
  latestInstructionVersion(name: string): Promise<number | undefined>;
  listInstructions(): Promise<InstructionRow[]>;
  deleteInstruction(name: string, version: number): Promise<boolean>;
}

/** Which `EventsTx` methods write (refused inside `read()`); every method is checked (tx-access.ts). */
export const EVENTS_ACCESS = {
  insertEventHandler: 'write',
  updateEventHandler: 'write',
  getEventHandler: 'read',
  listEventHandlers: 'read',
  deleteEventHandler: 'write',
  eventHandlersVersion: 'read',
  claimInbox: 'write',
  pruneInbox: 'write',
  insertEventExecutions: 'write',
  listEventExecutions: 'read',
  pruneEventExecutions: 'write',
  pruneScheduleExecutions: 'write',
  appendOutbox: 'write',
  takeRelayLease: 'write',
  releaseRelayLease: 'write',
  readOutbox: 'read',
  deleteOutbox: 'write',
  outboxSize: 'read',
  upsertSchedule: 'write',
  getSchedule: 'read',
  listSchedules: 'read',
  deleteSchedule: 'write',
  claimScheduleSlot: 'write',
  listScheduleExecutions: 'read',
  lastScheduledTime: 'read',
  insertInstruction: 'write',
  getInstruction: 'read',
  latestInstructionVersion: 'read',
  listInstructions: 'read',
  deleteInstruction: 'write',
} as const satisfies PortAccess<EventsTx>;

/** The events part of a transaction, behind `Tx.events`. */
export interface EventsPort {
  /** Event handlers, inbox, executions, outbox, schedules and instruction texts (`ports/events.ts`). */
  readonly events: EventsTx;
}
