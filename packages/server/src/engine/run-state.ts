import {
  isTerminalTaskStatus,
  type JsonObject,
  type RunRecord,
  type TaskRecord,
  type WorkflowMessage,
} from '@baton/protocol';
import { documentRefOf, taskView, workflowView, type ExpressionDocument } from './expressions.js';
import type { ScheduleContext } from './kinds/schedule-context.js';
import { SeqHeap } from './seq-heap.js';
import type { Command, DecideContext, Decision } from './types.js';
import { copyWith } from '../copy-with.js';

/**
 * The run and its tasks as they stand during one `decide` call. Every change replaces a
 * record with a changed copy (the records in the context are never touched) and is
 * remembered, so the decision lists exactly what changed.
 *
 * The loaded tasks are indexed once, in one pass, when the state is made (by id, latest by
 * ref, open tasks, ended tasks not yet acted on, highest seq); every later step reads and
 * keeps those indexes up to date, so one step of the interpreter costs what it touches, not
 * what the run has done before (a loop's thousandth iteration is as cheap as its first).
 */
export class RunState {
  /** Set by a rerun's first decision: the input given for the task it reruns from. */
  rerunInput?: { readonly ref: string; readonly input: JsonObject };
  private currentRun: RunRecord;
  private runChanged = false;
  /** Current version of every task, in seq order. */
  private readonly records: TaskRecord[];
  private readonly positionById = new Map<string, number>();
  /** The task with the highest seq of every reference name. */
  private readonly latestRef = new Map<string, TaskRecord>();
  /** Ids of the tasks that are not terminal. */
  private readonly open = new Set<string>();
  /** Terminal tasks not yet acted on (`executed` false), smallest seq first. */
  private readonly pending = new SeqHeap();
  private maxSeq = 0;
  /** The expression document, made on first use and then kept current. */
  private doc: Record<string, unknown> | undefined;
  /** The latest task of every name of the expression document (a ref without loop suffixes). */
  private readonly latestDoc = new Map<string, TaskRecord>();
  private readonly created = new Set<string>();
  private readonly changed = new Set<string>();
  private readonly emitted: Command[] = [];

  /** The context steps read; its scripts are counted (`scriptCalls`). */
  readonly ctx: DecideContext;
  /** Scripts asked for by this decision so far: bounded per step (MAX_SCRIPTS_PER_STEP). */
  scriptCalls = 0;

  constructor(ctx: DecideContext) {
    const scripts = ctx.scripts;
    const counted =
      <A extends unknown[], R>(call: (...args: A) => R) =>
      (...args: A): R => {
        this.scriptCalls++;
        return call(...args);
      };
    this.ctx = copyWith(ctx, {
      scripts: {
        javascript: counted((source, input) => scripts.javascript(source, input)),
        jq: counted((source, input) => scripts.jq(source, input)),
        checkJavascript: (source) => scripts.checkJavascript(source),
        checkJq: (source) => scripts.checkJq(source),
      },
    });
    this.currentRun = ctx.run;
    this.records = [...ctx.tasks];
    this.records.forEach((task, i) => {
      this.positionById.set(task.taskId, i);
      this.index(task);
    });
  }

  get run(): RunRecord {
    return this.currentRun;
  }

  /** Every task in seq order. Reading it all costs the run's size: steps use the indexes. */
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
    return this.latestRef.get(ref);
  }

  /** The tasks that are not terminal, in no particular order. */
  openTasks(): TaskRecord[] {
    const out: TaskRecord[] = [];
    for (const id of this.open) {
      const task = this.task(id);
      if (task) out.push(task);
    }
    return out;
  }

  hasOpenTasks(): boolean {
    return this.open.size > 0;
  }

  /** The ended task not yet acted on with the smallest seq, if any. */
  nextPending(): TaskRecord | undefined {
    for (;;) {
      const id = this.pending.peek();
      if (id === undefined) return undefined;
      const task = this.task(id);
      if (task && !task.executed && isTerminalTaskStatus(task.status)) return task;
      this.pending.pop();
    }
  }

  updateRun(patch: Partial<RunRecord>): void {
    // The patch is a few fields: merged with the time first, then the run copied once.
    this.currentRun = copyWith(this.currentRun, copyWith(patch, { updateTime: this.ctx.now }));
    this.runChanged = true;
    if (this.doc) this.doc.workflow = workflowView(this.currentRun);
  }

  /** Replaces the run record whole (to drop a field a patch cannot remove). */
  replaceRun(run: RunRecord): void {
    this.currentRun = copyWith(run, { updateTime: this.ctx.now });
    this.runChanged = true;
  }

  /** Replaces a task with a changed copy and returns the copy. */
  updateTask(task: TaskRecord, patch: Partial<TaskRecord>): TaskRecord {
    const position = this.positionById.get(task.taskId);
    if (position === undefined)
      throw new Error(`task ${task.taskId} is not part of run ${this.run.workflowId}`);
    const current = this.records[position] ?? task;
    const next: TaskRecord = copyWith(current, patch);
    if (patch.inputData !== undefined && patch.templateSecrets === undefined)
      keepTemplateSecrets(current, next);
    this.records[position] = next;
    if (!this.created.has(task.taskId)) this.changed.add(task.taskId);
    this.index(next);
    return next;
  }

  addTasks(tasks: readonly TaskRecord[]): void {
    for (const task of tasks) {
      this.positionById.set(task.taskId, this.records.length);
      this.records.push(task);
      this.created.add(task.taskId);
      this.index(task);
    }
  }

  command(...commands: Command[]): void {
    this.emitted.push(...commands);
  }

  nextSeq(): number {
    return this.maxSeq + 1;
  }

  /** The expression document of the run as it stands (kept current, never rebuilt). */
  expressionDocument(): ExpressionDocument {
    if (!this.doc) {
      const doc: Record<string, unknown> = {};
      for (const [ref, task] of this.latestDoc) doc[ref] = taskView(task);
      doc.workflow = workflowView(this.currentRun);
      if (this.ctx.instructions !== undefined && !Object.hasOwn(doc, 'instructions'))
        doc.instructions = this.ctx.instructions;
      this.doc = doc;
    }
    return this.doc;
  }

  scheduleContext(): ScheduleContext {
    return {
      ctx: this.ctx,
      run: this.currentRun,
      tasks: this.records,
      nextSeq: this.nextSeq(),
      expressionDocument: () => this.expressionDocument(),
      availableMessages: () => this.availableMessages(),
      ...(this.rerunInput && { rerunInput: this.rerunInput }),
    };
  }

  /** Mailbox messages not taken by a `TAKE_MESSAGES` command of this decision, oldest first. */
  availableMessages(): readonly WorkflowMessage[] {
    const taken = new Set(this.emitted.flatMap((c) => (c.type === 'TAKE_MESSAGES' ? c.messageIds : [])));
    return (this.ctx.mailbox ?? []).filter((message) => !taken.has(message.id));
  }

  decision(ignored = false): Decision {
    const pick = (ids: Set<string>): TaskRecord[] => {
      const out: TaskRecord[] = [];
      for (const id of ids) {
        const task = this.task(id);
        if (task) out.push(task);
      }
      return out.sort((a, b) => a.seq - b.seq);
    };
    return {
      run: this.currentRun,
      runChanged: this.runChanged,
      newTasks: pick(this.created),
      updatedTasks: pick(this.changed),
      commands: [...this.emitted],
      ignored,
    };
  }

  /** Brings the indexes up to date with this (new or changed) record. */
  private index(task: TaskRecord): void {
    if (task.seq > this.maxSeq) this.maxSeq = task.seq;
    const latest = this.latestRef.get(task.referenceTaskName);
    if (!latest || latest.seq <= task.seq) this.latestRef.set(task.referenceTaskName, task);
    if (isTerminalTaskStatus(task.status)) {
      this.open.delete(task.taskId);
      if (!task.executed) this.pending.push(task.taskId, task.seq);
    } else {
      this.open.add(task.taskId);
    }
    // A later attempt (or iteration) of a ref replaces an earlier one, never the reverse.
    const docRef = documentRefOf(task);
    const shown = this.latestDoc.get(docRef);
    if (!shown || shown.seq <= task.seq) {
      this.latestDoc.set(docRef, task);
      if (this.doc) this.doc[docRef] = taskView(task);
    }
  }
}

/**
 * Marks of where the template wrote secret references hold for the text they were made on
 * only: an input changed afterwards (a rerun's or a skip's body) is data, so a mark survives
 * only where the string it points into is the very same text as before.
 */
function keepTemplateSecrets(before: TaskRecord, after: TaskRecord): void {
  const refs = before.templateSecrets;
  if (refs === undefined) return;
  const kept = refs.filter((ref) => {
    const was = valueAt(before.inputData, ref.path);
    return typeof was === 'string' && was === valueAt(after.inputData, ref.path);
  });
  if (kept.length > 0) after.templateSecrets = kept;
  else delete after.templateSecrets;
}

function valueAt(root: unknown, path: ReadonlyArray<string | number>): unknown {
  let node = root;
  for (const step of path) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, step)) return undefined;
    node = (node as Record<string | number, unknown>)[step];
  }
  return node;
}
