import type {
  EventAction,
  EventExecution,
  EventExecutionStatus,
  EventHandler,
  JsonObject,
  JsonValue,
} from '@baton/protocol';
import type { Logger } from 'pino';

import type { Clock } from '../clock.js';
import { resolveParameters } from '../engine/index.js';
import type { AsyncScriptRunner } from '../scripting/async-scripts.js';
import { BatonError, coerceError } from '../errors.js';
import type { WakeBus } from '../queue/wake-bus.js';
import { afterCommit, type AfterCommit, type DecisionApplier } from '../decisions/decision-applier.js';
import { type HandOffAttempts, renewAttempt, settledWith } from '../decisions/after-commit.js';
import type { EventExecutionRow, Store, Tx } from '../store/store.js';
import type { Delivery } from './broker.js';
import type { RunActions } from './run-actions.js';
import { copyWith } from '../copy-with.js';
import { jsonShapeProblem } from '../bounds/json-shape.js';

/** What the processor did with one delivery. */
export type Outcome = 'processed' | 'duplicate' | 'retry' | 'failed';

/** After this many failed attempts at one message on this node, it is recorded FAILED and acknowledged. */
export const MAX_ATTEMPTS = 5;

/**
 * Acts on one message for the active handlers of its event: evaluates each handler's condition,
 * then, in ONE transaction, claims the message in the inbox, applies every action whose
 * condition holds and records one execution per action. Only after that commit is the message
 * acknowledged; a message whose inbox row exists (a redelivery after a crash between commit and
 * ack, or a re-sent message with the same id) is acknowledged without doing anything again.
 * When the transaction itself fails (database down) the message is given back to the broker.
 */
export class EventProcessor {
  /** Failed attempts per message id on this node (cleared on success; forgotten past 10,000 ids). */
  private readonly attempts = new Map<string, number>();
  constructor(
    private readonly store: Store,
    private readonly executor: DecisionApplier,
    private readonly actions: RunActions,
    private readonly scripts: AsyncScriptRunner,
    private readonly wake: WakeBus,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** Counts what became of each message (`baton_event_messages_total`). */
    private readonly counted: (event: string, outcome: Outcome) => void = () => undefined,
    /** This node's waiting polls, handed the tasks the actions queue (handout/parked-polls.ts). */
    private readonly parkedAttempt?: HandOffAttempts,
  ) {}

  async process(event: string, handlers: readonly EventHandler[], delivery: Delivery): Promise<Outcome> {
    // Traced: the handlers' execution is a span, and the runs they start are its children.
    return this.executor.within(
      `event ${event}`,
      { 'baton.event': event, 'messaging.message.id': delivery.id, 'baton.event.handlers': handlers.length },
      () => this.processOne(event, handlers, delivery),
    );
  }

  private async processOne(
    event: string,
    handlers: readonly EventHandler[],
    delivery: Delivery,
  ): Promise<Outcome> {
    const payload = parsePayload(delivery.body);
    if (typeof payload === 'string') return this.refuse(event, handlers, delivery, payload);
    const after = afterCommit();
    let outcome: Outcome;
    try {
      // Inside the try: a condition that cannot be evaluated at all (the script runner failing,
      // not the script) is an error like an action's, given back after the pause and counted
      // toward MAX_ATTEMPTS. Left to the broker, AMQP would redeliver it at once, without end.
      const conditions = await Promise.all(handlers.map((h) => this.condition(h, payload)));
      const transaction = this.store.transaction(async (tx) => {
        // Fresh per attempt: the transaction may be run again from the start (PostgreSQL retries).
        renewAttempt(after, this.parkedAttempt);
        if (!(await tx.events.claimInbox(event, delivery.id, this.clock.now()))) return 'duplicate';
        const rows: EventExecutionRow[] = [];
        for (const [h, handler] of handlers.entries()) {
          const verdict = conditions[h] ?? { ok: true };
          for (const [i, action] of handler.actions.entries()) {
            const record = verdict.ok
              ? await this.apply(tx, event, handler, action, payload, delivery.id, after)
              : { status: 'SKIPPED' as const, output: verdict.output };
            rows.push(this.execution(event, delivery.id, handler, i, record));
          }
        }
        await tx.events.insertEventExecutions(rows);
        return 'processed' as const;
      });
      outcome = await settledWith(after, transaction);
    } catch (raw) {
      const err = coerceError(raw);
      if (this.attempts.size > 10_000) this.attempts.clear();
      const attempts = (this.attempts.get(delivery.id) ?? 0) + 1;
      this.attempts.set(delivery.id, attempts);
      if (
        attempts >= MAX_ATTEMPTS &&
        (await this.recordFailed(
          event,
          handlers,
          delivery,
          `gave up after ${MAX_ATTEMPTS} attempts: ${err.message}`,
        ))
      ) {
        this.logger.error(
          { err, event, messageId: delivery.id },
          'event message failed every attempt: recorded FAILED',
        );
        this.attempts.delete(delivery.id);
        return this.recordedFailed(event, delivery);
      }
      this.logger.warn(
        { err, event, messageId: delivery.id, attempts },
        'event message not processed; the broker will deliver it again',
      );
      return this.giveBack(event, delivery);
    }
    this.attempts.delete(delivery.id);
    // Counted before the ack: a duplicate is known as soon as its transaction answered.
    this.counted(event, outcome);
    if (outcome === 'duplicate')
      this.logger.info(
        { event, messageId: delivery.id },
        'event message already acted on: acknowledged again, nothing done',
      );
    await delivery.ack();
    this.executor.afterCommitted(after, this.wake);
    return outcome;
  }

  /**
   * A message no handler can act on: JSON past the shape every body is held to (deeper than
   * MAX_JSON_DEPTH, text no database stores). Taking it in would overflow the stack of every walk
   * of it (conditions, expressions, the run's record) on every node it came back to; it is
   * recorded FAILED at once, saying why, and acknowledged.
   */
  private async refuse(
    event: string,
    handlers: readonly EventHandler[],
    delivery: Delivery,
    reason: string,
  ): Promise<Outcome> {
    if (!(await this.recordFailed(event, handlers, delivery, reason))) return this.giveBack(event, delivery);
    this.logger.warn({ event, messageId: delivery.id, reason }, 'event message refused: recorded FAILED');
    return this.recordedFailed(event, delivery);
  }

  /** A message recorded FAILED: counted, then acknowledged (it would come back the same). */
  private async recordedFailed(event: string, delivery: Delivery): Promise<Outcome> {
    this.counted(event, 'failed');
    await delivery.ack();
    return 'failed';
  }

  /** A message given back to the broker, after a pause so a database outage does not spin on redeliveries. */
  private async giveBack(event: string, delivery: Delivery): Promise<Outcome> {
    await new Promise((resolve) => setTimeout(resolve, 500));
    await delivery.nack();
    this.counted(event, 'retry');
    return 'retry';
  }

  /**
   * A message whose processing keeps failing (not a refusal: an error the actions raised) would
   * come back forever. After MAX_ATTEMPTS it is claimed in the inbox with one FAILED execution
   * per action carrying the error, and acknowledged; a message refused on sight goes the same
   * way at once. When even that cannot commit (the database is down), it stays with the broker.
   */
  private async recordFailed(
    event: string,
    handlers: readonly EventHandler[],
    delivery: Delivery,
    exception: string,
  ): Promise<boolean> {
    try {
      await this.store.transaction(async (tx) => {
        if (!(await tx.events.claimInbox(event, delivery.id, this.clock.now()))) return;
        const output = { exception };
        await tx.events.insertEventExecutions(
          handlers.flatMap((handler) =>
            handler.actions.map((_action, i) =>
              this.execution(event, delivery.id, handler, i, { status: 'FAILED', output }),
            ),
          ),
        );
      });
      return true;
    } catch {
      return false;
    }
  }

  private execution(
    event: string,
    messageId: string,
    handler: EventHandler,
    index: number,
    record: { status: EventExecutionStatus; output: JsonObject },
  ): EventExecutionRow {
    const id = `${messageId}_${handler.name}_${index}`;
    const created = this.clock.now();
    const execution: EventExecution = {
      id,
      messageId,
      name: handler.name,
      event,
      created,
      status: record.status,
      action: handler.actions[index]?.action ?? 'unknown',
      output: record.output,
    };
    return { id, handler: handler.name, messageId, created, record: { ...execution } };
  }

  private async condition(
    handler: EventHandler,
    payload: JsonObject,
  ): Promise<{ ok: true } | { ok: false; output: JsonObject }> {
    const condition = handler.condition;
    if (typeof condition !== 'string' || condition.trim() === '') return { ok: true };
    if (handler.evaluatorType === 'value-param') {
      const value = resolveParameters({ v: `\${${condition}}` }, payload).v;
      return truthy(value)
        ? { ok: true }
        : { ok: false, output: { msg: 'Event condition evaluated to false', condition } };
    }
    const result = await this.scripts.javascript(condition, payload);
    if (result.ok && truthy(result.value)) return { ok: true };
    const why = result.ok ? 'Event condition evaluated to false' : `Event condition failed: ${result.error}`;
    return { ok: false, output: { msg: why, condition } };
  }

  /** One action inside the message's transaction; an expected refusal becomes a FAILED execution. */
  private async apply(
    tx: Tx,
    event: string,
    handler: EventHandler,
    action: EventAction,
    payload: JsonObject,
    messageId: string,
    after: AfterCommit,
  ): Promise<{ status: EventExecutionStatus; output: JsonObject }> {
    const doc = action.expandInlineJSON === true ? expandInlineJson(payload) : payload;
    const params = resolveParameters(action[action.action] ?? {}, doc);
    const str = (key: string): string | undefined =>
      typeof params[key] === 'string' ? params[key] : undefined;
    const obj = (key: string): JsonObject => {
      const v = params[key];
      return typeof v === 'object' && v !== null && !Array.isArray(v) ? v : {};
    };
    const marks = { 'conductor.event.messageId': messageId, 'conductor.event.name': event };
    try {
      switch (action.action) {
        case 'start_workflow': {
          const version = params.version;
          const priority = params.priority;
          const correlationId = str('correlationId');
          const workflowId = await this.actions.start(
            tx,
            {
              name: str('name') ?? '',
              ...(typeof version === 'number' && version > 0 && { version }),
              ...(typeof priority === 'number' && { priority }),
              input: copyWith(obj('input'), marks),
              ...(correlationId !== undefined && { correlationId }),
              taskToDomain: stringMap(obj('taskToDomain')),
              event,
            },
            after,
          );
          return { status: 'COMPLETED', output: { workflowId } };
        }
        case 'complete_task':
        case 'fail_task': {
          const output = copyWith(obj('output'), marks);
          const task = await this.actions.endTask(
            tx,
            {
              ...(str('taskId') !== undefined && { taskId: str('taskId') }),
              ...(str('workflowId') !== undefined && { workflowId: str('workflowId') }),
              ...(str('taskRefName') !== undefined && { taskRefName: str('taskRefName') }),
            },
            action.action === 'complete_task' ? 'COMPLETED' : 'FAILED',
            output,
            str('reasonForIncompletion') ??
              (action.action === 'fail_task' ? `failed by event handler ${handler.name}` : undefined),
            after,
          );
          return {
            status: 'COMPLETED',
            output: { workflowId: task.workflowInstanceId, taskId: task.taskId },
          };
        }
        case 'terminate_workflow': {
          const workflowId = str('workflowId') ?? '';
          await this.actions.terminate(
            tx,
            workflowId,
            str('terminationReason') ?? `terminated by event handler ${handler.name}`,
            after,
          );
          return { status: 'COMPLETED', output: { workflowId } };
        }
        case 'update_workflow_variables': {
          const workflowId = str('workflowId') ?? '';
          const variables = await this.actions.updateVariables(
            tx,
            workflowId,
            obj('variables'),
            params.appendArray === true,
          );
          return { status: 'COMPLETED', output: { workflowId, variables } };
        }
      }
    } catch (raw) {
      // Only refusals (BatonError) are the action's outcome; anything else is the database's
      // and must roll the message back for redelivery.
      if (!(raw instanceof BatonError)) throw raw;
      return { status: 'FAILED', output: { exception: raw.message } };
    }
    return { status: 'FAILED', output: { exception: `unknown action ${String(action.action)}` } };
  }
}

/** The message as handlers see it, or why it is refused (a string). */
function parsePayload(body: string): JsonObject | string {
  let value: JsonValue;
  try {
    value = JSON.parse(body) as JsonValue;
  } catch {
    return { payload: body };
  }
  const payload =
    typeof value === 'object' && value !== null && !Array.isArray(value) ? value : { payload: value };
  const problem = jsonShapeProblem(payload, 'message');
  return problem ? `refused: ${problem.path} ${problem.message}` : payload;
}

function truthy(value: JsonValue | undefined): boolean {
  return (
    value !== false &&
    value !== null &&
    value !== undefined &&
    value !== 0 &&
    value !== '' &&
    value !== 'false'
  );
}

function stringMap(o: JsonObject): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(o)) if (typeof v === 'string') out[k] = v;
  return out;
}

/** Strings holding JSON objects or arrays become values (Conductor's `expandInlineJSON`). */
function expandInlineJson(value: JsonObject): JsonObject {
  const expand = (v: JsonValue): JsonValue => {
    if (typeof v === 'string' && /^\s*[[{]/.test(v)) {
      try {
        return expand(JSON.parse(v) as JsonValue);
      } catch {
        return v;
      }
    }
    if (Array.isArray(v)) return v.map(expand);
    if (typeof v === 'object' && v !== null) return expandInlineJson(v);
    return v;
  };
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) out[k] = expand(v);
  return out;
}
