import type { JsonObject, ScheduleExecution, ValidationError, WorkflowSchedule } from '@baton/protocol';

import { type Authorship, stampAuthorship } from '../auth/authorship.js';
import type { Clock } from '../clock.js';
import { fail } from '../errors.js';
import { newId } from '../ids.js';
import type { WakeBus } from '../queue/wake-bus.js';
import { afterCommit, type AfterCommit, type DecisionApplier } from '../decisions/decision-applier.js';
import type { ScheduleExecutionRow, StoredSchedule, StoredTimer, Store, Tx } from '../store/store.js';
import { cronProblem, nextSlots } from './cron.js';

export const SCHEDULE_TIMER_KIND = 'SCHEDULE';
/**
 * A slot this much older than now when its timer fires was missed (no node ran): caught up or
 * skipped. Firing a little late (a busy node) is not missing the slot.
 */
export const MISFIRE_GRACE_MS = 5000;

/** How soon a node whose scheduler is paused puts a due schedule timer back. */
export const PAUSED_NODE_RECHECK_MS = 1000;

/** Most slots one firing works off (a long downtime with catch-up is worked off in rounds). */
const MAX_SLOTS_PER_FIRE = 500;

const timerIdOf = (name: string): string => `schedule:${name}`;

/**
 * Schedules: Conductor's WorkflowSchedule, fired from the durable timer table. Each schedule has
 * one timer, due at its next slot. The node that fires it claims the slot's row in
 * `schedule_executions` (unique per schedule and slot) in the same transaction as it starts the
 * run and arms the next slot's timer, so each slot starts one run across all nodes, and a crash
 * before commit leaves the timer to be fired again. Slots missed while no node ran are started
 * (`runCatchupScheduleInstances`) or recorded SKIPPED.
 */
export class ScheduleService {
  /** Conductor's scheduler admin pause: this node leaves every schedule's timer to other nodes. */
  private pausedOnThisNode = false;

  constructor(
    private readonly store: Store,
    private readonly executor: DecisionApplier,
    private readonly wake: WakeBus,
    private readonly clock: Clock,
  ) {}

  async save(input: WorkflowSchedule, mustExist = false, actor?: string): Promise<WorkflowSchedule> {
    const problems = this.check(input);
    if (problems.length > 0)
      throw fail('SCHEDULE_INVALID', { detail: problems.map((p) => p.message).join('; ') }, problems);
    const now = this.clock.now();
    const after = afterCommit();
    const saved = await this.store.transaction(async (tx) => {
      const existing = await tx.events.getSchedule(input.name);
      if (mustExist && !existing) throw fail('SCHEDULE_NOT_FOUND', { name: input.name });
      const record: WorkflowSchedule = {
        ...stampAuthorship(input, actor, existing?.record as Authorship | undefined),
        zoneId: input.zoneId ?? 'UTC',
        paused: input.paused === true,
        runCatchupScheduleInstances: input.runCatchupScheduleInstances === true,
        createTime: existing?.createTime ?? now,
        updatedTime: now,
      };
      delete record.nextRunTime;
      const stored: StoredSchedule = {
        name: record.name,
        workflowName: record.startWorkflowRequest.name,
        paused: record.paused === true,
        record: record as unknown as JsonObject,
        createTime: existing?.createTime ?? now,
        updateTime: now,
      };
      await tx.events.upsertSchedule(stored);
      const floor = await this.owedSince(tx, existing, record, now);
      await this.arm(tx, record, floor, floor);
      return record;
    });
    this.wake.wake([...after.wakeQueues]);
    return this.view(saved);
  }

  async get(name: string): Promise<WorkflowSchedule> {
    const stored = await this.store.read((tx) => tx.events.getSchedule(name));
    if (!stored) throw fail('SCHEDULE_NOT_FOUND', { name });
    return this.view(stored.record as unknown as WorkflowSchedule);
  }

  async list(workflowName?: string): Promise<WorkflowSchedule[]> {
    const rows = await this.store.read((tx) => tx.events.listSchedules(workflowName));
    return rows.map((r) => this.view(r.record as unknown as WorkflowSchedule));
  }

  /** Conductor's schedule search: filters, then a page ordered by name. */
  async search(filter: {
    workflowName?: string;
    scheduleName?: string;
    paused?: boolean;
    freeText?: string;
    start: number;
    size: number;
  }): Promise<{ totalHits: number; results: WorkflowSchedule[] }> {
    const text =
      filter.freeText !== undefined && filter.freeText !== '*' ? filter.freeText.toLowerCase() : undefined;
    const all = (await this.list(filter.workflowName)).filter(
      (s) =>
        (filter.scheduleName === undefined || s.name === filter.scheduleName) &&
        (filter.paused === undefined || (s.paused === true) === filter.paused) &&
        (text === undefined || JSON.stringify(s).toLowerCase().includes(text)),
    );
    return { totalHits: all.length, results: all.slice(filter.start, filter.start + filter.size) };
  }

  async remove(name: string): Promise<void> {
    const deleted = await this.store.transaction(async (tx) => {
      await tx.cancelTimers({ workflowId: timerIdOf(name) });
      return tx.events.deleteSchedule(name);
    });
    if (!deleted) throw fail('SCHEDULE_NOT_FOUND', { name });
  }

  async pause(name: string, reason?: string): Promise<void> {
    await this.setPaused(name, true, reason);
  }

  async resume(name: string): Promise<void> {
    await this.setPaused(name, false);
  }

  async executions(scheduleName: string | undefined, start: number, size: number) {
    const page = await this.store.read((tx) => tx.events.listScheduleExecutions(scheduleName, start, size));
    return { totalHits: page.totalHits, results: page.results.map(executionView) };
  }

  /** The next `limit` slots of an expression (Conductor's nextFewSchedules), epoch ms. */
  nextFew(cronExpression: string, zoneId: string, limit: number, start?: number, end?: number): number[] {
    const problem = cronProblem(cronExpression, zoneId);
    if (problem)
      throw fail('CRON_EXPRESSION_INVALID', { detail: problem }, [
        { path: 'querystring.cronExpression', message: problem, invalidValue: cronExpression },
      ]);
    // From the given start (a preview of any period), else from now.
    const from = start !== undefined ? start - 1 : this.clock.now();
    try {
      return nextSlots(cronExpression, zoneId, from, limit, end);
    } catch (raw) {
      const reason = raw instanceof Error ? raw.message : String(raw);
      const message = `no slots can be computed from ${from + 1}: ${reason}`;
      throw fail('SCHEDULE_SLOTS_UNAVAILABLE', { from: from + 1, reason }, [
        { path: 'querystring.scheduleStartTime', message, invalidValue: start },
      ]);
    }
  }

  /**
   * Conductor's `/api/scheduler/admin/pause` and `/resume`: stops (or restarts) firing schedules
   * on this node only, for debugging, as Conductor does per server instance. Schedules and
   * their own paused flags are unchanged; other nodes keep firing them.
   */
  pauseThisNode(paused: boolean): void {
    this.pausedOnThisNode = paused;
  }

  /** The timer loop's handler for SCHEDULE timers (inside the firing transaction, timer already deleted). */
  async fire(tx: Tx, timer: StoredTimer, after: AfterCommit): Promise<void> {
    const name = typeof timer.payload.schedule === 'string' ? timer.payload.schedule : undefined;
    if (name === undefined) return;
    const stored = await tx.events.getSchedule(name);
    if (!stored || stored.paused) return;
    const schedule = stored.record as unknown as WorkflowSchedule;
    const now = this.clock.now();
    if (this.pausedOnThisNode) {
      // The timer goes back as it was, due again shortly: another node (or this one, resumed)
      // fires it with the same floor, so the slots due meanwhile are handled as misfires.
      await this.rearm(tx, schedule.name, now + PAUSED_NODE_RECHECK_MS, timer.payload);
      return;
    }
    const zone = schedule.zoneId ?? 'UTC';
    const floorFromTimer = typeof timer.payload.floor === 'number' ? timer.payload.floor : now;
    const last = await tx.events.lastScheduledTime(name);
    const floor = Math.max(
      floorFromTimer,
      last ?? Number.NEGATIVE_INFINITY,
      (schedule.scheduleStartTime ?? 0) - 1,
    );
    const until = Math.min(now, schedule.scheduleEndTime ?? Number.POSITIVE_INFINITY);
    const slots =
      until > floor ? nextSlots(schedule.cronExpression, zone, floor, MAX_SLOTS_PER_FIRE, until) : [];
    let handled = floor;
    for (const slot of slots) {
      // Traced: each slot's firing is a span; the run it starts is its child.
      const fired = { 'baton.schedule.name': schedule.name, 'baton.schedule.slot': slot };
      await this.executor.within(`schedule ${schedule.name}`, fired, () =>
        this.runSlot(tx, schedule, slot, now, after),
      );
      handled = slot;
    }
    await this.arm(tx, schedule, Math.max(now, handled), handled);
  }

  private async runSlot(
    tx: Tx,
    schedule: WorkflowSchedule,
    slot: number,
    now: number,
    after: AfterCommit,
  ): Promise<void> {
    const executionId = newId();
    const request = schedule.startWorkflowRequest;
    const base = {
      executionId,
      scheduleName: schedule.name,
      scheduledTime: slot,
      executionTime: now,
    };
    const context: JsonObject = {
      workflowName: request.name,
      zoneId: schedule.zoneId ?? 'UTC',
      startWorkflowRequest: request as unknown as JsonObject,
    };
    const missed = slot < now - MISFIRE_GRACE_MS;
    if (missed && schedule.runCatchupScheduleInstances !== true) {
      await tx.events.claimScheduleSlot({
        ...base,
        state: 'SKIPPED',
        record: {
          ...context,
          reason: 'missed while no node was running, and runCatchupScheduleInstances is false',
        },
      });
      return;
    }
    const definition = await tx.getWorkflowDef(request.name, request.version);
    if (!definition) {
      await tx.events.claimScheduleSlot({
        ...base,
        state: 'FAILED',
        record: { ...context, reason: `No such workflow found by name: ${request.name}` },
      });
      return;
    }
    const workflowId = newId();
    const claimed = await tx.events.claimScheduleSlot({
      ...base,
      state: 'EXECUTED',
      record: { ...context, workflowId },
    });
    // Another node took this slot: it started the run.
    if (!claimed) return;
    await this.executor.startRun(
      tx,
      {
        workflowId,
        definition,
        input: {
          ...(request.input ?? {}),
          _startedByScheduler: schedule.name,
          _scheduledTime: slot,
          _executedTime: now,
          _executionId: executionId,
          _schedulerCron: schedule.cronExpression,
        },
        priority: typeof request.priority === 'number' ? Math.max(0, Math.min(99, request.priority)) : 0,
        taskToDomain: request.taskToDomain ?? {},
        ...(typeof request.correlationId === 'string' && { correlationId: request.correlationId }),
      },
      after,
    );
  }

  /**
   * Where a saved schedule's slots start being owed. A new schedule, a new expression or zone, or
   * a schedule that was paused owes nothing before now. An update that keeps the expression (a
   * new input, catch-up switched on) must not drop the slot that is due but whose timer has not
   * fired yet: slots after the last one handled and within the misfire grace are still owed.
   */
  private async owedSince(
    tx: Tx,
    existing: StoredSchedule | undefined,
    record: WorkflowSchedule,
    now: number,
  ): Promise<number> {
    if (!existing || existing.paused) return now;
    const before = existing.record as unknown as WorkflowSchedule;
    if (before.cronExpression !== record.cronExpression || (before.zoneId ?? 'UTC') !== record.zoneId)
      return now;
    const last = (await tx.events.lastScheduledTime(record.name)) ?? existing.updateTime;
    return Math.min(now, Math.max(last, existing.updateTime, now - MISFIRE_GRACE_MS));
  }

  private async rearm(tx: Tx, name: string, dueAt: number, payload: StoredTimer['payload']): Promise<void> {
    const timerId = timerIdOf(name);
    await tx.cancelTimers({ workflowId: timerId });
    await tx.armTimers(
      [{ timerId, workflowId: timerId, kind: SCHEDULE_TIMER_KIND, dueAt, payload }],
      this.clock.now(),
    );
    this.executor.timerArmed(dueAt);
  }

  /** Arms (or replaces) the schedule's timer at its first slot after `after`; none when it has no more. */
  private async arm(tx: Tx, schedule: WorkflowSchedule, after: number, floor: number): Promise<void> {
    const timerId = timerIdOf(schedule.name);
    await tx.cancelTimers({ workflowId: timerId });
    if (schedule.paused === true) return;
    const zone = schedule.zoneId ?? 'UTC';
    const from = Math.max(after, (schedule.scheduleStartTime ?? 0) - 1);
    const next = nextSlots(schedule.cronExpression, zone, from, 1, schedule.scheduleEndTime)[0];
    if (next === undefined) return;
    const now = this.clock.now();
    await tx.armTimers(
      [
        {
          timerId,
          workflowId: timerId,
          kind: SCHEDULE_TIMER_KIND,
          dueAt: next,
          payload: { schedule: schedule.name, floor },
        },
      ],
      now,
    );
    this.executor.timerArmed(next);
  }

  private async setPaused(name: string, paused: boolean, reason?: string): Promise<void> {
    const now = this.clock.now();
    await this.store.transaction(async (tx) => {
      const stored = await tx.events.getSchedule(name);
      if (!stored) throw fail('SCHEDULE_NOT_FOUND', { name });
      const record: WorkflowSchedule = {
        ...(stored.record as unknown as WorkflowSchedule),
        paused,
        updatedTime: now,
      };
      if (paused && reason !== undefined) record.pausedReason = reason;
      if (!paused) delete record.pausedReason;
      await tx.events.upsertSchedule({
        ...stored,
        paused,
        record: record as unknown as JsonObject,
        updateTime: now,
      });
      // A resumed schedule owes nothing for the time it was paused.
      await this.arm(tx, record, now, now);
    });
  }

  private view(schedule: WorkflowSchedule): WorkflowSchedule {
    if (schedule.paused === true) return schedule;
    const next = nextSlots(
      schedule.cronExpression,
      schedule.zoneId ?? 'UTC',
      Math.max(this.clock.now(), (schedule.scheduleStartTime ?? 0) - 1),
      1,
      schedule.scheduleEndTime,
    )[0];
    return next === undefined ? schedule : { ...schedule, nextRunTime: next };
  }

  private check(s: WorkflowSchedule): ValidationError[] {
    const errors: ValidationError[] = [];
    const add = (path: string, message: string, invalidValue?: unknown): void => {
      errors.push({ path: `body.${path}`, message, ...(invalidValue !== undefined && { invalidValue }) });
    };
    if (typeof s.name !== 'string' || s.name.trim() === '') add('name', 'Schedule name cannot be empty');
    else if (!/^[A-Za-z0-9_.:-]+$/.test(s.name))
      add('name', 'Schedule name may hold letters, digits, _ . : - only', s.name);
    const problem = cronProblem(s.cronExpression, s.zoneId ?? 'UTC');
    if (problem)
      add(
        problem.startsWith('unknown time zone') ? 'zoneId' : 'cronExpression',
        problem,
        problem.startsWith('unknown') ? s.zoneId : s.cronExpression,
      );
    if (typeof s.startWorkflowRequest.name !== 'string' || s.startWorkflowRequest.name === '')
      add('startWorkflowRequest.name', 'the workflow to start is required');
    if (
      s.scheduleStartTime !== undefined &&
      s.scheduleEndTime !== undefined &&
      s.scheduleEndTime < s.scheduleStartTime
    )
      add('scheduleEndTime', 'scheduleEndTime is before scheduleStartTime', s.scheduleEndTime);
    return errors;
  }
}

function executionView(row: ScheduleExecutionRow): ScheduleExecution {
  const { reason, workflowId, ...rest } = row.record;
  return {
    executionId: row.executionId,
    scheduleName: row.scheduleName,
    scheduledTime: row.scheduledTime,
    executionTime: row.executionTime,
    state: row.state,
    ...rest,
    // Written by this service as strings; the record is stored as JSON.
    ...(typeof workflowId === 'string' && { workflowId }),
    ...(typeof reason === 'string' && { reason }),
  };
}
