import { performance } from 'node:perf_hooks';

import { isTerminalTaskStatus, type JsonObject, type TaskRecord, type TaskResult } from '@baton/protocol';
import type { Logger } from 'pino';

import type { Clock } from '../../clock.js';
import { BatonError } from '../../errors.js';
import { SYSTEM_CALL_ENDED_WAKE, systemQueueName, type SystemCallKind } from '../../engine/index.js';
import type { WakeBus } from '../../queue/wake-bus.js';
import type { PollRequest, TaskService } from '../../operations/task-service.js';
import type { Store } from '../../store/store.js';
import type {
  CallContext,
  CallHandlerRegistry,
  CallOutcome,
  SecretResolver,
  SystemCall,
} from '../call-handler.js';
import { describeCall } from '../../views/call-description.js';
import { TemplateSecrets } from '../secrets/template-secrets.js';
import type { EgressAgents } from '../http/egress-agent.js';
import type { CallMetrics, CallResultLabel } from './call-metrics.js';
import { Slots } from './slots.js';
import { tracedCall } from '../../tracing/call-tracing.js';
import type { Tracing } from '../../tracing/tracing.js';
import { copyWith } from '../../copy-with.js';
import { withinDepth } from '../../bounds/json-shape.js';
import { MAX_JSON_DEPTH } from '../../bounds/ranges.js';

/**
 * The leased executor of system calls, one per node. It claims tasks from the internal queues
 * (`_system-HTTP`, …) through the worker hand-out (`TaskService.poll`: the same SKIP LOCKED
 * claim, lease and response timeout (the lease's lapse) as a worker's), runs each with the handler of its kind, at
 * most `concurrency` at once, and posts the outcome through the worker result path. While a
 * call runs its lease is extended (a heartbeat), so a slow call keeps it and a dead node's
 * lapses: the response timeout then makes the next attempt on any node (at-least-once).
 *
 * Cancellation: a call whose task ended elsewhere (terminate, the parent's end, a timeout,
 * skip) is aborted through its AbortSignal. The store is the truth: every in-flight task's
 * status is read periodically, and at once when a node sends the `_system-call-ended` wake-up
 * (in-process, and over LISTEN/NOTIFY on PostgreSQL) in the transaction that ended one.
 */

const NO_SECRETS: SecretResolver = {
  values: () => Promise.resolve(new Map()),
  mask: (text) => text,
};

export interface SystemTaskExecutorOptions {
  readonly tasks: TaskService;
  readonly store: Store;
  readonly wake: WakeBus;
  readonly clock: Clock;
  readonly handlers: CallHandlerRegistry;
  readonly agents: EgressAgents;
  readonly logger: Logger;
  readonly metrics: CallMetrics;
  /** `BATON_SYSTEM_TASK_CONCURRENCY`. */
  readonly concurrency: number;
  /** The worker id the executor claims as (shown in `waitingFor`, poll data). */
  readonly nodeId: string;
  readonly secrets?: SecretResolver;
  /** How often in-flight calls are checked against the store without a wake-up (ms). */
  readonly checkIntervalMs?: number;
  /** Longest idle wait between claims when nothing wakes the loop (ms): bounds how late a delayed check is seen. */
  readonly idleMs?: number;
  /** Each call as a client span under its task attempt's (off: no span). */
  readonly tracing?: Tracing;
}

/** Why an in-flight call was aborted by the executor. */
type AbortCause = 'ended' | 'stopping';

interface InFlight {
  readonly task: TaskRecord;
  readonly kind: SystemCallKind;
  readonly controller: AbortController;
  cause?: AbortCause;
}

const POST_ATTEMPTS = 5;

export class SystemTaskExecutor {
  private readonly slots: Slots;
  private readonly inFlight = new Map<string, InFlight>();
  private readonly running = new Set<Promise<void>>();
  private readonly stopController = new AbortController();
  private readonly secrets: SecretResolver;
  private loops: Promise<void>[] = [];
  private started = false;

  constructor(private readonly options: SystemTaskExecutorOptions) {
    this.slots = new Slots(options.concurrency);
    this.secrets = options.secrets ?? NO_SECRETS;
  }

  /** Calls running on this node now. */
  get callsInFlight(): number {
    return this.inFlight.size;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.loops = [this.claimLoop(), this.watchLoop()];
  }

  /**
   * Stops claiming, lets calls in flight finish for up to `graceMs`, then aborts the rest and
   * gives their tasks back to their queues (the same attempt; another node takes them at once).
   */
  async stop(graceMs: number): Promise<void> {
    if (this.stopController.signal.aborted) return;
    this.stopController.abort();
    await Promise.all(this.loops);
    if (this.running.size > 0 && graceMs > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all([...this.running]),
        new Promise((resolve) => (timer = setTimeout(resolve, graceMs))),
      ]);
      clearTimeout(timer);
    }
    for (const entry of this.inFlight.values()) this.abort(entry, 'stopping');
    await Promise.all([...this.running]);
  }

  // --- claiming

  private async claimLoop(): Promise<void> {
    const signal = this.stopController.signal;
    const idleMs = this.options.idleMs ?? 1000;
    let turn = 0;
    // Whether to claim without looking first: after work was found, a wake-up for these queues,
    // or the time a look said a message comes due. Otherwise the round looks (`nextDue`, one
    // read) and claims only if a message is due: an idle node makes one read a second, not a
    // claim transaction per kind. The look still comes at least every `idleMs`, so a lost
    // wake-up costs no more latency than before.
    let claimNext = true;
    let dueAt: number | undefined;
    while (!signal.aborted) {
      // The kind that claims first rotates, so a flood of one kind never starves the others.
      const all = this.options.handlers.kinds();
      const start = all.length === 0 ? 0 : turn++ % all.length;
      const kinds = [...all.slice(start), ...all.slice(0, start)];
      const queues = kinds.flatMap((k) => [systemQueueName(k), `${systemQueueName(k)}-high`]);
      const free = await this.slots.takeFree(signal);
      if (free === 0) break;
      const seen = this.options.wake.generation(queues);
      let claimed = 0;
      let left = free;
      try {
        if (!claimNext) {
          dueAt = await this.options.tasks.nextDue(kinds.map((kind) => this.request(kind, 0)));
          claimNext = dueAt !== undefined && dueAt <= this.options.clock.now();
        }
        // A claim answers what the look did: a message left due after it is another node's, or
        // held back by a limit, and is looked for again, not claimed at once.
        if (claimNext) dueAt = undefined;
        // A kind with work takes what is free; the next kind what is left.
        for (const kind of claimNext ? kinds : []) {
          if (left === 0 || signal.aborted) break;
          const tasks = await this.options.tasks.poll(this.request(kind, left));
          for (const task of tasks) this.launch(kind, task);
          left -= tasks.length;
          claimed += tasks.length;
        }
      } catch (error) {
        this.options.logger.warn({ err: error }, 'system-task executor could not claim; trying again');
        this.slots.release(left);
        claimNext = true;
        dueAt = undefined;
        await this.options.wake.wait([], idleMs, signal);
        continue;
      }
      this.slots.release(left);
      claimNext = claimed > 0;
      if (claimed > 0) continue;
      const untilDue = dueAt === undefined ? idleMs : dueAt - this.options.clock.now();
      await this.options.wake.wait(queues, Math.min(idleMs, Math.max(0, untilDue)), signal, seen);
      claimNext =
        this.options.wake.generation(queues) !== seen ||
        (dueAt !== undefined && dueAt <= this.options.clock.now());
    }
  }

  /** A claim of `count` calls of one kind, answered at once. */
  private request(kind: SystemCallKind, count: number): PollRequest {
    return { taskType: systemQueueName(kind), workerId: this.options.nodeId, count, timeoutMs: 0 };
  }

  private launch(kind: SystemCallKind, task: TaskRecord): void {
    if (this.stopController.signal.aborted) {
      // Claimed while stopping: give it straight back.
      const back = this.options.tasks.release([task]).catch(() => {});
      this.track(back.then(() => this.slots.release(1)));
      return;
    }
    this.track(this.execute(kind, task));
  }

  private track(work: Promise<void>): void {
    // A call's work handles its own failures; one it did not foresee is logged here, never left
    // to reject unhandled, which would end the node's process (and the next node's that claimed
    // the same call after the lease lapsed).
    const settled = work.catch((error: unknown) => {
      this.options.logger.error({ err: error }, 'a system call failed unexpectedly');
    });
    this.running.add(settled);
    void settled.finally(() => this.running.delete(settled));
  }

  // --- one call

  private async execute(kind: SystemCallKind, task: TaskRecord): Promise<void> {
    const entry: InFlight = { task, kind, controller: new AbortController() };
    this.inFlight.set(task.taskId, entry);
    this.options.metrics.started(kind);
    const started = performance.now();
    const logs: string[] = [];
    const leaseMs = Math.max(1000, task.responseTimeoutSeconds * 1000);
    const heartbeat = setInterval(() => void this.extendLease(entry), Math.max(250, Math.floor(leaseMs / 3)));
    const templateSecrets = new TemplateSecrets();
    let outcome: CallOutcome;
    try {
      outcome = await this.callHandler(kind, task, entry.controller.signal, logs, templateSecrets);
    } finally {
      clearInterval(heartbeat);
      this.inFlight.delete(task.taskId);
      this.slots.release(1);
    }
    const seconds = (performance.now() - started) / 1000;
    if (entry.cause === 'ended') {
      this.options.metrics.ended(kind, 'canceled', seconds);
      return;
    }
    if (entry.cause === 'stopping') {
      this.options.metrics.ended(kind, 'released', seconds);
      await this.options.tasks.release([task]).catch((error: unknown) => {
        this.options.logger.warn(
          { err: error, taskId: task.taskId },
          'could not give a call back; its lease will lapse',
        );
      });
      return;
    }
    this.options.metrics.ended(kind, resultLabel(outcome), seconds);
    await this.post(task, outcome, logs, templateSecrets);
  }

  private async callHandler(
    kind: SystemCallKind,
    task: TaskRecord,
    signal: AbortSignal,
    logs: string[],
    templateSecrets: TemplateSecrets,
  ): Promise<CallOutcome> {
    const handler = this.options.handlers.get(kind);
    if (!handler) return { status: 'FAILED', reason: `no handler for ${kind} on this server` };
    const call: SystemCall = {
      taskId: task.taskId,
      workflowId: task.workflowInstanceId,
      taskType: kind,
      declaredType: task.taskType,
      referenceTaskName: task.referenceTaskName,
      workflowTask: task.workflowTask,
      input: templateSecrets.input(task),
      attempt: task.retryCount + 1,
      previousOutput: task.outputData,
    };
    const agents = this.options.agents;
    const ctx: CallContext = {
      signal,
      fetch: agents.fetch,
      dispatcher: agents.dispatcher,
      resolveSecrets: async (value, used) => {
        const names = templateSecrets.names(value);
        if (names.length === 0) return value;
        const values = await this.secrets.values(names);
        used?.(values.values());
        return templateSecrets.resolve(value, values);
      },
      secretValues: (names) => this.secrets.values(names),
      log: (line) => void logs.push(line),
      now: () => this.options.clock.now(),
    };
    try {
      const tracing = this.options.tracing;
      const outcome = await (tracing?.enabled
        ? tracedCall(tracing, kind, task, () => handler.call(call, ctx))
        : handler.call(call, ctx));
      return boundedOutcome(kind, outcome);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { status: 'FAILED', reason: `Failed to invoke ${kind} task due to: ${message}` };
    }
  }

  /**
   * Posts the outcome as a worker result (asyncComplete: the task stays IN_PROGRESS off its
   * queue). When making the result fails (a fault of this code, not of the call), the call fails
   * naming only the error's kind (the outcome may hold secrets still to be masked) instead of being
   * made again forever.
   */
  private async post(
    task: TaskRecord,
    outcome: CallOutcome,
    logs: readonly string[],
    templateSecrets: TemplateSecrets,
  ): Promise<void> {
    let made: { result: TaskResult; detach: boolean };
    try {
      made = this.resultOf(task, outcome, logs, templateSecrets);
    } catch (error) {
      const name = error instanceof Error ? error.name : 'Error';
      this.options.logger.error(
        { err: error, taskId: task.taskId },
        'could not make the result of a system call',
      );
      made = {
        detach: false,
        result: {
          taskId: task.taskId,
          workflowInstanceId: task.workflowInstanceId,
          workerId: this.options.nodeId,
          status: 'FAILED',
          reasonForIncompletion: `Failed to invoke ${task.taskType} task due to: its outcome could not be recorded (${name}; the node's log has the details)`,
        },
      };
    }
    await this.record(made.result, made.detach, task);
  }

  private resultOf(
    task: TaskRecord,
    outcome: CallOutcome,
    logs: readonly string[],
    templateSecrets: TemplateSecrets,
  ): { result: TaskResult; detach: boolean } {
    const mask = (text: string): string => this.secrets.mask(templateSecrets.restore(text));
    const maskOutput = (output: JsonObject): JsonObject => {
      const restored = templateSecrets.restoreJson(output);
      return this.secrets.maskJson?.(restored) ?? restored;
    };
    const lines = [...logs, ...(outcome.logs ?? [])];
    const base = {
      taskId: task.taskId,
      workflowInstanceId: task.workflowInstanceId,
      workerId: this.options.nodeId,
    };
    let result: TaskResult;
    let detach = false;
    switch (outcome.status) {
      case 'COMPLETED':
        detach = task.workflowTask.asyncComplete === true;
        result = copyWith(base, {
          status: detach ? 'IN_PROGRESS' : 'COMPLETED',
          outputData: maskOutput(outcome.output),
        });
        if (detach) lines.push('asyncComplete: waiting to be completed from outside');
        break;
      case 'FAILED':
      case 'FAILED_WITH_TERMINAL_ERROR':
        result = copyWith(base, {
          status: outcome.status,
          reasonForIncompletion: mask(outcome.reason),
          ...(outcome.output !== undefined && { outputData: maskOutput(outcome.output) }),
        });
        break;
      case 'IN_PROGRESS':
        result = copyWith(base, {
          status: 'IN_PROGRESS',
          outputData: maskOutput(outcome.output),
          callbackAfterSeconds: Math.max(0, Math.ceil(outcome.checkAfterSeconds)),
        });
        lines.push(outcome.waitingFor);
        break;
    }
    const now = this.options.clock.now();
    result.logs = lines.map((log) => ({ log: mask(log), createdTime: now }));
    return { result, detach };
  }

  private async record(result: TaskResult, detach: boolean, task: TaskRecord): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.options.tasks.update(result, { detach });
        return;
      } catch (error) {
        // 409: the task ended meanwhile (canceled, timed out); there is nothing left to record.
        if (isConflict(error)) return;
        if (attempt >= POST_ATTEMPTS || this.stopController.signal.aborted) {
          // The lease lapses and the response timeout makes the call again: at-least-once.
          this.options.logger.error(
            { err: error, taskId: task.taskId },
            'could not record the outcome of a system call; it will be made again when its lease lapses',
          );
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
      }
    }
  }

  /** Heartbeat: moves the lease (and its response timer) on; a task that ended is aborted. */
  private async extendLease(entry: InFlight): Promise<void> {
    if (entry.cause !== undefined) return;
    try {
      const { applied, task } = await this.options.tasks.update({
        taskId: entry.task.taskId,
        workflowInstanceId: entry.task.workflowInstanceId,
        status: 'IN_PROGRESS',
        extendLease: true,
        workerId: this.options.nodeId,
      });
      if (!applied && isTerminalTaskStatus(task.status)) this.abort(entry, 'ended');
    } catch (error) {
      // 409: the attempt has ended (or is no longer this node's): stop the call.
      if (isConflict(error)) {
        this.abort(entry, 'ended');
        return;
      }
      this.options.logger.warn(
        { err: error, taskId: entry.task.taskId },
        'could not extend the lease of a system call',
      );
    }
  }

  // --- cancellation

  private async watchLoop(): Promise<void> {
    const signal = this.stopController.signal;
    const every = this.options.checkIntervalMs ?? 1000;
    while (!signal.aborted) {
      const seen = this.options.wake.generation([SYSTEM_CALL_ENDED_WAKE]);
      if (this.inFlight.size > 0) {
        try {
          await this.checkInFlight();
        } catch (error) {
          this.options.logger.warn({ err: error }, 'could not check system calls in flight');
        }
      }
      await this.options.wake.wait([SYSTEM_CALL_ENDED_WAKE], every, signal, seen);
    }
  }

  /** Aborts every call whose task is no longer this node's open attempt. */
  private async checkInFlight(): Promise<void> {
    const ids = [...this.inFlight.keys()];
    const current = await this.options.store.read((tx) => tx.getTasks(ids));
    const byId = new Map(current.map((t) => [t.taskId, t]));
    for (const id of ids) {
      const entry = this.inFlight.get(id);
      if (!entry) continue;
      const task = byId.get(id);
      const stillOurs =
        task !== undefined && task.status === 'IN_PROGRESS' && task.workerId === this.options.nodeId;
      if (!stillOurs) {
        this.options.logger.info(
          { taskId: id, status: task?.status, call: describeCall(entry.task) },
          'system call aborted: its task ended elsewhere',
        );
        this.abort(entry, 'ended');
      }
    }
  }

  private abort(entry: InFlight, cause: AbortCause): void {
    if (entry.cause !== undefined) return;
    entry.cause = cause;
    entry.controller.abort(
      new Error(cause === 'ended' ? 'the task ended while the call was in flight' : 'the server is stopping'),
    );
  }
}

function resultLabel(outcome: CallOutcome): CallResultLabel {
  switch (outcome.status) {
    case 'COMPLETED':
      return 'completed';
    case 'FAILED':
      return 'failed';
    case 'FAILED_WITH_TERMINAL_ERROR':
      return 'failed_terminal';
    case 'IN_PROGRESS':
      return 'in_progress';
  }
}

function isConflict(error: unknown): boolean {
  return error instanceof BatonError && error.code === 'CONFLICT';
}

/**
 * A call's output enters its run like any input: no deeper than free JSON may be (a remote that
 * answers `[[[[…]]]]` a hundred thousand deep would otherwise overflow the stack of every walk of
 * it: masking, expressions, the record's serialization). The call fails, as an answer too large does.
 */
function boundedOutcome(kind: SystemCallKind, outcome: CallOutcome): CallOutcome {
  if (outcome.output === undefined || withinDepth(outcome.output, MAX_JSON_DEPTH)) return outcome;
  return {
    status: 'FAILED',
    reason: `Failed to invoke ${kind} task due to: its output is nested deeper than ${MAX_JSON_DEPTH} levels (the limit)`,
  };
}
