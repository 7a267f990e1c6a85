import type { RunRecord, TaskRecord } from '@baton/protocol';
import { buildExpressionDocument } from './expressions.js';
import type { ScheduleContext } from './kinds/kind.js';
import type { Command, DecideContext, Decision } from './types.js';

/**
 * The run and its tasks as they stand during one `decide` call. Every change replaces a
 * record with a changed copy (the records in the context are never touched) and is
 * remembered, so the decision lists exactly what changed.
 */
export class RunState {
  private currentRun: RunRecord;
  private runChanged = false;
  /** Current version of every task, in seq order. */
  private readonly records: TaskRecord[];
  private readonly positionById = new Map<string, number>();
  private readonly created = new Set<string>();
  private readonly changed = new Set<string>();
  private readonly emitted: Command[] = [];

  constructor(readonly ctx: DecideContext) {
    this.currentRun = ctx.run;
    this.records = [...ctx.tasks];
    this.records.forEach((task, i) => this.positionById.set(task.taskId, i));
  }

  get run(): RunRecord {
    return this.currentRun;
  }

  get tasks(): readonly TaskRecord[] {
    return this.records;
  }

  get now(): number {
    return this.ctx.now;
  }

  task(taskId: string): TaskRecord | undefined {
    const position = this.positionById.get(taskId);
    return position === undefined ? undefined : this.records[position];
  }

  /** The latest task (highest seq) with this reference name. */
  latestByRef(ref: string): TaskRecord | undefined {
    for (let i = this.records.length - 1; i >= 0; i--) {
      const task = this.records[i];
      if (task?.referenceTaskName === ref) return task;
    }
    return undefined;
  }

  updateRun(patch: Partial<RunRecord>): void {
    this.currentRun = { ...this.currentRun, ...patch, updateTime: this.ctx.now };
    this.runChanged = true;
  }

  /** Replaces the run record whole (to drop a field a patch cannot remove). */
  replaceRun(run: RunRecord): void {
    this.currentRun = { ...run, updateTime: this.ctx.now };
    this.runChanged = true;
  }

  /** Replaces a task with a changed copy and returns the copy. */
  updateTask(task: TaskRecord, patch: Partial<TaskRecord>): TaskRecord {
    const position = this.positionById.get(task.taskId);
    if (position === undefined)
      throw new Error(`task ${task.taskId} is not part of run ${this.run.workflowId}`);
    const current = this.records[position] ?? task;
    const next: TaskRecord = { ...current, ...patch };
    this.records[position] = next;
    if (!this.created.has(task.taskId)) this.changed.add(task.taskId);
    return next;
  }

  addTasks(tasks: readonly TaskRecord[]): void {
    for (const task of tasks) {
      this.positionById.set(task.taskId, this.records.length);
      this.records.push(task);
      this.created.add(task.taskId);
    }
  }

  command(...commands: Command[]): void {
    this.emitted.push(...commands);
  }

  nextSeq(): number {
    let max = 0;
    for (const task of this.records) max = Math.max(max, task.seq);
    return max + 1;
  }

  scheduleContext(): ScheduleContext {
    return {
      ctx: this.ctx,
      run: this.currentRun,
      tasks: this.records,
      nextSeq: this.nextSeq(),
      expressionDocument: () => buildExpressionDocument(this.currentRun, this.records),
    };
  }

  decision(ignored = false): Decision {
    return {
      run: this.currentRun,
      runChanged: this.runChanged,
      newTasks: this.records.filter((task) => this.created.has(task.taskId)),
      updatedTasks: this.records.filter((task) => this.changed.has(task.taskId)),
      commands: [...this.emitted],
      ignored,
    };
  }
}
