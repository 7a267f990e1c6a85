import type { JsonObject } from '@baton/protocol';

import {
  EVENTS_ACCESS,
  type EventExecutionRow,
  type EventsTx,
  type InstructionRow,
  type OutboxEntry,
  type Page,
  type ScheduleExecutionRow,
  type ScheduleExecutionState,
  type StoredEventHandler,
  type StoredOutboxEntry,
  type StoredSchedule,
} from './ports/events.js';
import type { TxState } from './sql-common.js';
import { guardMethods } from './tx-access.js';

/**
 * How a dialect runs one statement written with `$n` parameters: `rows` answers the rows, `exec`
 * the number of rows changed. PostgreSQL's runner goes through the transaction's query function
 * (so writes waiting in write-behind go first); SQLite's rewrites `$n` to `?n`.
 */
export interface SqlRunner {
  rows<R>(sql: string, params: readonly unknown[]): Promise<R[]>;
  exec(sql: string, params: readonly unknown[]): Promise<number>;
}

type Num = number | string;
const num = (v: Num | null | undefined): number => Number(v ?? 0);
const json = (v: string | JsonObject): JsonObject =>
  typeof v === 'string' ? (JSON.parse(v) as JsonObject) : v;

interface HandlerRow {
  name: string;
  event: string;
  active: Num;
  handler: string;
  create_time: Num;
  update_time: Num;
}
interface ExecutionRow {
  id: string;
  handler: string;
  message_id: string;
  created: Num;
  record: string;
}
interface OutboxRow {
  seq: Num;
  sink: string;
  message_id: string;
  payload: string;
  created_at: Num;
}
interface ScheduleRow {
  name: string;
  workflow_name: string;
  paused: Num;
  record: string;
  create_time: Num;
  update_time: Num;
}
interface SlotRow {
  execution_id: string;
  schedule_name: string;
  scheduled_time: Num;
  execution_time: Num;
  state: string;
  record: string;
}
interface InstrRow {
  name: string;
  version: Num;
  text: string;
  content_type: string;
  create_time: Num;
}

const handlerOf = (r: HandlerRow): StoredEventHandler => ({
  name: r.name,
  event: r.event,
  active: num(r.active) === 1,
  handler: json(r.handler),
  createTime: num(r.create_time),
  updateTime: num(r.update_time),
});
const executionOf = (r: ExecutionRow): EventExecutionRow => ({
  id: r.id,
  handler: r.handler,
  messageId: r.message_id,
  created: num(r.created),
  record: json(r.record),
});
const scheduleOf = (r: ScheduleRow): StoredSchedule => ({
  name: r.name,
  workflowName: r.workflow_name,
  paused: num(r.paused) === 1,
  record: json(r.record),
  createTime: num(r.create_time),
  updateTime: num(r.update_time),
});
const slotOf = (r: SlotRow): ScheduleExecutionRow => ({
  executionId: r.execution_id,
  scheduleName: r.schedule_name,
  scheduledTime: num(r.scheduled_time),
  executionTime: num(r.execution_time),
  state: r.state as ScheduleExecutionState,
  record: json(r.record),
});
const instructionOf = (r: InstrRow): InstructionRow => ({
  name: r.name,
  version: num(r.version),
  text: r.text,
  contentType: r.content_type,
  createTime: num(r.create_time),
});

const BUMP_HANDLERS = "UPDATE change_counters SET version = version + 1 WHERE name = 'event_handlers'";
const SLOT_COLUMNS = 'execution_id, schedule_name, scheduled_time, execution_time, state, record';

/** `EventsTx` over either dialect's runner; which methods write is `EVENTS_ACCESS` (ports/events.ts). */
export class SqlEventsTx implements EventsTx {
  constructor(
    private readonly sql: SqlRunner,
    /** Read by the check `guardMethods` puts in front of every method. */
    protected readonly state: TxState,
  ) {}

  private read<R>(text: string, params: readonly unknown[] = []): Promise<R[]> {
    return this.sql.rows<R>(text, params);
  }

  private write(text: string, params: readonly unknown[] = []): Promise<number> {
    return this.sql.exec(text, params);
  }

  // --- event handlers

  async insertEventHandler(h: StoredEventHandler): Promise<boolean> {
    const n = await this.write(
      `INSERT INTO event_handlers (name, event, active, handler, create_time, update_time)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (name) DO NOTHING`,
      [h.name, h.event, h.active ? 1 : 0, JSON.stringify(h.handler), h.createTime, h.updateTime],
    );
    if (n > 0) await this.write(BUMP_HANDLERS);
    return n > 0;
  }

  async updateEventHandler(h: StoredEventHandler): Promise<boolean> {
    const n = await this.write(
      'UPDATE event_handlers SET event = $2, active = $3, handler = $4, update_time = $5 WHERE name = $1',
      [h.name, h.event, h.active ? 1 : 0, JSON.stringify(h.handler), h.updateTime],
    );
    if (n > 0) await this.write(BUMP_HANDLERS);
    return n > 0;
  }

  async getEventHandler(name: string): Promise<StoredEventHandler | undefined> {
    const rows = await this.read<HandlerRow>('SELECT * FROM event_handlers WHERE name = $1', [name]);
    return rows[0] && handlerOf(rows[0]);
  }

  async listEventHandlers(): Promise<StoredEventHandler[]> {
    return (await this.read<HandlerRow>('SELECT * FROM event_handlers ORDER BY name')).map(handlerOf);
  }

  async deleteEventHandler(name: string): Promise<boolean> {
    const n = await this.write('DELETE FROM event_handlers WHERE name = $1', [name]);
    if (n > 0) await this.write(BUMP_HANDLERS);
    return n > 0;
  }

  async eventHandlersVersion(): Promise<number> {
    const rows = await this.read<{ version: Num }>(
      "SELECT version FROM change_counters WHERE name = 'event_handlers'",
    );
    return num(rows[0]?.version);
  }

  // --- inbox

  async claimInbox(source: string, messageId: string, now: number): Promise<boolean> {
    const n = await this.write(
      `INSERT INTO event_inbox (source, message_id, received_at) VALUES ($1, $2, $3)
       ON CONFLICT (source, message_id) DO NOTHING`,
      [source, messageId, now],
    );
    return n > 0;
  }

  pruneInbox(before: number): Promise<number> {
    return this.write('DELETE FROM event_inbox WHERE received_at < $1', [before]);
  }

  // --- executions

  async insertEventExecutions(rows: readonly EventExecutionRow[]): Promise<void> {
    for (const r of rows) {
      await this.write(
        `INSERT INTO event_executions (id, handler, message_id, created, record) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (id) DO NOTHING`,
        [r.id, r.handler, r.messageId, r.created, JSON.stringify(r.record)],
      );
    }
  }

  async listEventExecutions(
    handler: string | undefined,
    start: number,
    size: number,
  ): Promise<Page<EventExecutionRow>> {
    const where = handler === undefined ? '' : 'WHERE handler = $1';
    const params = handler === undefined ? [] : [handler];
    const n = params.length;
    const count = await this.read<{ n: Num }>(`SELECT count(*) AS n FROM event_executions ${where}`, params);
    const rows = await this.read<ExecutionRow>(
      `SELECT * FROM event_executions ${where} ORDER BY created DESC, id DESC LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...params, size, start],
    );
    return { totalHits: num(count[0]?.n), results: rows.map(executionOf) };
  }

  pruneEventExecutions(before: number): Promise<number> {
    return this.write('DELETE FROM event_executions WHERE created < $1', [before]);
  }

  // --- outbox

  async appendOutbox(entries: readonly OutboxEntry[]): Promise<void> {
    if (entries.length === 0) return;
    // One statement for a decision's events, in order (seq follows the VALUES order).
    const values: unknown[] = [];
    const rows = entries.map((e, i) => {
      values.push(e.sink, e.messageId, JSON.stringify(e.payload), e.createdAt);
      const n = i * 4;
      return `($${n + 1}, $${n + 2}, $${n + 3}, $${n + 4})`;
    });
    await this.write(
      `INSERT INTO outbox (sink, message_id, payload, created_at) VALUES ${rows.join(', ')}`,
      values,
    );
  }

  async takeRelayLease(holder: string, now: number, leaseMs: number): Promise<boolean> {
    const n = await this.write(
      `INSERT INTO outbox_relay (name, holder, lease_until) VALUES ('outbox', $1, $2)
       ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, lease_until = excluded.lease_until
       WHERE outbox_relay.holder = excluded.holder OR outbox_relay.lease_until < $3`,
      [holder, now + leaseMs, now],
    );
    return n > 0;
  }

  async releaseRelayLease(holder: string): Promise<void> {
    await this.write("DELETE FROM outbox_relay WHERE name = 'outbox' AND holder = $1", [holder]);
  }

  async readOutbox(limit: number): Promise<StoredOutboxEntry[]> {
    const rows = await this.read<OutboxRow>('SELECT * FROM outbox ORDER BY seq LIMIT $1', [limit]);
    return rows.map((r) => ({
      seq: num(r.seq),
      sink: r.sink,
      messageId: r.message_id,
      payload: json(r.payload),
      createdAt: num(r.created_at),
    }));
  }

  async deleteOutbox(seqs: readonly number[]): Promise<void> {
    const ints = seqs.filter((s) => Number.isSafeInteger(s));
    if (ints.length === 0) return;
    // Integers only, so they go in as literals: one statement whatever the dialect.
    await this.write(`DELETE FROM outbox WHERE seq IN (${ints.join(', ')})`);
  }

  async outboxSize(): Promise<number> {
    return num((await this.read<{ n: Num }>('SELECT count(*) AS n FROM outbox'))[0]?.n);
  }

  // --- schedules

  async upsertSchedule(s: StoredSchedule): Promise<void> {
    await this.write(
      `INSERT INTO schedules (name, workflow_name, paused, record, create_time, update_time)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (name) DO UPDATE SET workflow_name = excluded.workflow_name, paused = excluded.paused,
         record = excluded.record, update_time = excluded.update_time`,
      [s.name, s.workflowName, s.paused ? 1 : 0, JSON.stringify(s.record), s.createTime, s.updateTime],
    );
  }

  async getSchedule(name: string): Promise<StoredSchedule | undefined> {
    const rows = await this.read<ScheduleRow>('SELECT * FROM schedules WHERE name = $1', [name]);
    return rows[0] && scheduleOf(rows[0]);
  }

  async listSchedules(workflowName?: string): Promise<StoredSchedule[]> {
    const rows =
      workflowName === undefined
        ? await this.read<ScheduleRow>('SELECT * FROM schedules ORDER BY name')
        : await this.read<ScheduleRow>('SELECT * FROM schedules WHERE workflow_name = $1 ORDER BY name', [
            workflowName,
          ]);
    return rows.map(scheduleOf);
  }

  async deleteSchedule(name: string): Promise<boolean> {
    return (await this.write('DELETE FROM schedules WHERE name = $1', [name])) > 0;
  }

  async claimScheduleSlot(r: ScheduleExecutionRow): Promise<boolean> {
    const n = await this.write(
      `INSERT INTO schedule_executions (${SLOT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (schedule_name, scheduled_time) DO NOTHING`,
      [r.executionId, r.scheduleName, r.scheduledTime, r.executionTime, r.state, JSON.stringify(r.record)],
    );
    return n > 0;
  }

  async listScheduleExecutions(
    scheduleName: string | undefined,
    start: number,
    size: number,
  ): Promise<Page<ScheduleExecutionRow>> {
    const where = scheduleName === undefined ? '' : 'WHERE schedule_name = $1';
    const params = scheduleName === undefined ? [] : [scheduleName];
    const n = params.length;
    const count = await this.read<{ n: Num }>(
      `SELECT count(*) AS n FROM schedule_executions ${where}`,
      params,
    );
    const rows = await this.read<SlotRow>(
      `SELECT ${SLOT_COLUMNS} FROM schedule_executions ${where}
       ORDER BY scheduled_time DESC, execution_id DESC LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...params, size, start],
    );
    return { totalHits: num(count[0]?.n), results: rows.map(slotOf) };
  }

  async lastScheduledTime(scheduleName: string): Promise<number | undefined> {
    const rows = await this.read<{ t: Num | null }>(
      'SELECT max(scheduled_time) AS t FROM schedule_executions WHERE schedule_name = $1',
      [scheduleName],
    );
    const t = rows[0]?.t;
    return t === null || t === undefined ? undefined : num(t);
  }

  pruneScheduleExecutions(before: number, limit: number): Promise<number> {
    // Each schedule's latest slot stays, whatever its age: catch-up and the next firing start after it.
    return this.write(
      `DELETE FROM schedule_executions WHERE execution_id IN (
         SELECT e.execution_id FROM schedule_executions AS e
          WHERE e.execution_time < $1
            AND e.scheduled_time < (SELECT max(l.scheduled_time) FROM schedule_executions AS l
                                     WHERE l.schedule_name = e.schedule_name)
          ORDER BY e.execution_time LIMIT $2)`,
      [before, limit],
    );
  }

  // --- instruction texts

  async insertInstruction(r: InstructionRow): Promise<boolean> {
    const n = await this.write(
      `INSERT INTO instructions (name, version, text, content_type, create_time) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (name, version) DO NOTHING`,
      [r.name, r.version, r.text, r.contentType, r.createTime],
    );
    return n > 0;
  }

  async getInstruction(name: string, version?: number): Promise<InstructionRow | undefined> {
    const rows =
      version === undefined
        ? await this.read<InstrRow>(
            'SELECT * FROM instructions WHERE name = $1 ORDER BY version DESC LIMIT 1',
            [name],
          )
        : await this.read<InstrRow>('SELECT * FROM instructions WHERE name = $1 AND version = $2', [
            name,
            version,
          ]);
    return rows[0] && instructionOf(rows[0]);
  }

  async latestInstructionVersion(name: string): Promise<number | undefined> {
    const rows = await this.read<{ v: Num | null }>(
      'SELECT max(version) AS v FROM instructions WHERE name = $1',
      [name],
    );
    const v = rows[0]?.v;
    return v === null || v === undefined ? undefined : num(v);
  }

  async listInstructions(): Promise<InstructionRow[]> {
    return (await this.read<InstrRow>('SELECT * FROM instructions ORDER BY name, version')).map(
      instructionOf,
    );
  }

  async deleteInstruction(name: string, version: number): Promise<boolean> {
    return (
      (await this.write('DELETE FROM instructions WHERE name = $1 AND version = $2', [name, version])) > 0
    );
  }
}

guardMethods(SqlEventsTx, EVENTS_ACCESS);
