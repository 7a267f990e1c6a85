import type { JsonObject, ValidationError, WorkflowTask } from '@baton/protocol';
import type { Dispatcher, fetch as undiciFetch } from 'undici';

import { SYSTEM_CALL_KINDS, type SystemCallChecks, type SystemCallKind } from '../engine/index.js';

/**
 * The port every call the engine makes itself implements (HTTP, CALL_TOOL, LIST_TOOLS,
 * CONNECTOR, DOCUMENT_INTELLIGENCE, the LLM_* kinds). The executor (`executor/`) claims a queued task, hands
 * it to the handler of its kind with a `CallContext`, and posts the `CallOutcome` through the
 * worker result path. A handler does one call (or one check of a long operation) and answers;
 * it never touches the store, the clock of the engine or another run.
 */

/** One claimed task, as its handler sees it. */
export interface SystemCall {
  readonly taskId: string;
  readonly workflowId: string;
  /** The normalised kind: `CALL_TOOL` also for a node typed `CALL_MCP_TOOL`. */
  readonly taskType: SystemCallKind;
  /** The node's own `type` as written in the definition (`CALL_MCP_TOOL`, `HTTP`, …). */
  readonly declaredType: string;
  readonly referenceTaskName: string;
  /** The definition node the task was made from (e.g. its `asyncComplete`). */
  readonly workflowTask: WorkflowTask;
  /**
   * The task's resolved input. The secret references its definition wrote are in it as tokens
   * of this call (`secrets/template-secrets.ts`): pass what goes out through
   * `ctx.resolveSecrets` right before the call, never store the result. Placeholder text that
   * came from data is plain text and stays so.
   */
  readonly input: JsonObject;
  /** 1 for the first attempt (the task's retryCount + 1). */
  readonly attempt: number;
  /**
   * What an earlier check of this same attempt left (the output of an IN_PROGRESS outcome, e.g.
   * an operation location to poll); `{}` on the first call.
   */
  readonly previousOutput: JsonObject;
}

export type CallOutcome =
  | { readonly status: 'COMPLETED'; readonly output: JsonObject; readonly logs?: readonly string[] }
  | {
      readonly status: 'FAILED' | 'FAILED_WITH_TERMINAL_ERROR';
      /** Shown as the task's reasonForIncompletion; must not hold a secret value. */
      readonly reason: string;
      readonly output?: JsonObject;
      readonly logs?: readonly string[];
    }
  | {
      /**
       * Not done yet: check again after `checkAfterSeconds` (rounded up to whole seconds). The
       * task goes back on its queue with that delay (a durable timer: no lease, no thread,
       * survives restarts) and `output` is stored and given back as `previousOutput` on the
       * next check. Meanwhile the task's `waitingFor` reads "<what the call does> running, next
       * check at T" (`call-description.ts`).
       */
      readonly status: 'IN_PROGRESS';
      readonly checkAfterSeconds: number;
      readonly output: JsonObject;
      /** For people, e.g. "document analysis running (status: running)"; added to the task's log. */
      readonly waitingFor: string;
      readonly logs?: readonly string[];
    };

/** The fetch handlers use: undici's, with the server's dispatcher (egress policy, pooling). */
export type CallFetch = typeof undiciFetch;

/** What the executor gives a handler for one call. */
export interface CallContext {
  /**
   * Aborted when the task ends elsewhere (terminate, the parent run's end, a timeout, skip),
   * when the node stops, or when the lease is lost: stop at once, answer anything.
   */
  readonly signal: AbortSignal;
  /**
   * undici's fetch bound to the egress-checked dispatcher: denied hosts and addresses (checked
   * after DNS, on every redirect) fail before a connection opens; connections are reused.
   */
  readonly fetch: CallFetch;
  /** The same dispatcher, for clients that take one (e.g. an MCP transport's fetch). */
  readonly dispatcher: Dispatcher;
  /**
   * Puts the secrets' values in for the references the task's definition wrote (the tokens in
   * `call.input`), in a copy of `value` for the request about to go out only. Nothing else in
   * `value` is touched: `${workflow.secrets.NAME}` text that came from data goes out as text.
   * `used` is told the values put in (for a handler that masks what it answers itself).
   */
  resolveSecrets<T extends JsonObject>(value: T, used?: (values: Iterable<string>) => void): Promise<T>;
  /** The values of secrets named by a registered service's credentials (never by task input). */
  secretValues(names: readonly string[]): Promise<Map<string, string>>;
  /** A line for the task's log (masked of secret values before it is stored). */
  log(line: string): void;
  /** Epoch ms (the server's clock). */
  now(): number;
}

/**
 * How secrets reach calls (supplied to the executor by the secret store, when there is one):
 * placeholders are replaced in what goes out only, and every text the executor stores
 * (reasons, log lines) is masked.
 */
export interface SecretResolver {
  /** The values of these secrets (throws, naming what is missing, never a value). */
  values(names: readonly string[]): Promise<Map<string, string>>;
  /** Masks every secret value found in a text as `***`. */
  mask(text: string): string;
  /** The same for a JSON value (a call's output, e.g. an HTTP body echoing a header). */
  maskJson?<T extends JsonObject>(value: T): T;
}

/**
 * A call kind's implementation. To add one: implement this, and register it in
 * `createCallHandlers` (`integrations/index.ts`); registration then accepts its kind and the
 * executor claims from its queue.
 */
export interface CallHandler {
  /** The normalised kinds this handler runs (`HTTP`, `CALL_TOOL`, …). */
  readonly taskTypes: readonly SystemCallKind[];
  call(call: SystemCall, ctx: CallContext): Promise<CallOutcome>;
  /**
   * Registration checks of a node of one of its kinds at `path` (`tasks[2]`): missing or bad
   * fields, unknown services, tools, operations. Must be synchronous and cheap.
   */
  check?(node: WorkflowTask, path: string): ValidationError[];
}

/**
 * The handlers of this server, one per normalised kind. Registration (`SystemCallChecks`)
 * refuses a kind with no handler, so a server that lacks one says so instead of queueing
 * tasks nobody runs.
 */
export class CallHandlerRegistry implements SystemCallChecks {
  private readonly handlers = new Map<SystemCallKind, CallHandler>();

  register(handler: CallHandler): this {
    for (const kind of handler.taskTypes) {
      if (!Object.hasOwn(SYSTEM_CALL_KINDS, kind)) throw new Error(`${kind} is not a system-call kind`);
      if (this.handlers.has(kind)) throw new Error(`a call handler for ${kind} is already registered`);
      this.handlers.set(kind, handler);
    }
    return this;
  }

  get(kind: SystemCallKind): CallHandler | undefined {
    return this.handlers.get(kind);
  }

  /** The kinds with a handler (the executor claims from their queues only). */
  kinds(): SystemCallKind[] {
    return [...this.handlers.keys()];
  }

  supports(kind: string): boolean {
    return this.handlers.has(kind as SystemCallKind);
  }

  check(kind: string, node: WorkflowTask, path: string): ValidationError[] {
    return this.handlers.get(kind as SystemCallKind)?.check?.(node, path) ?? [];
  }
}
