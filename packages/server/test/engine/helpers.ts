import {
  isTerminalTaskStatus,
  type JsonObject,
  type RunRecord,
  type TaskDef,
  type TaskRecord,
  type TaskResult,
  type WorkflowDef,
  type WorkflowTask,
} from '@baton/protocol';
import { decide } from '../../src/engine/decide.js';
import { newRunRecord } from '../../src/engine/new-run.js';
import { noScripts, type ScriptRunner } from '../../src/engine/scripts.js';
import type {
  DecideContext,
  Decision,
  EngineEvent,
  FiredTimer,
  NewRunInput,
} from '../../src/engine/types.js';

export const T0 = Date.UTC(2026, 0, 1);

/** Freezes a value and everything reachable from it, so a test fails if decide mutates its inputs. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
    if (value instanceof Map) for (const item of value.values()) deepFreeze(item);
  }
  return value;
}

export function simple(ref: string, extra: Partial<WorkflowTask> = {}): WorkflowTask {
  return { name: extra.name ?? `${ref}_type`, taskReferenceName: ref, type: 'SIMPLE', ...extra };
}

/** A FORK_JOIN task of `branches` (each a list of tasks run in order). */
export function fork(
  ref: string,
  branches: WorkflowTask[][],
  extra: Partial<WorkflowTask> = {},
): WorkflowTask {
  return { name: ref, taskReferenceName: ref, type: 'FORK_JOIN', forkTasks: branches, ...extra };
}

/** A JOIN task waiting on `joinOn`. */
export function join(ref: string, joinOn: string[], extra: Partial<WorkflowTask> = {}): WorkflowTask {
  return { name: ref, taskReferenceName: ref, type: 'JOIN', joinOn, ...extra };
}

export function workflow(tasks: WorkflowTask[], extra: Partial<WorkflowDef> = {}): WorkflowDef {
  return { name: 'wf', version: 1, schemaVersion: 2, tasks, ...extra };
}

export function newRun(def: WorkflowDef, extra: Partial<NewRunInput> = {}): RunRecord {
  return newRunRecord({
    workflowId: 'wf-1',
    definition: def,
    input: {},
    priority: 0,
    taskToDomain: {},
    now: T0,
    ...extra,
  });
}

/** A deterministic context (ids `t1`, `t2`, … continuing across calls) with frozen inputs. */
export class Engine {
  run: RunRecord;
  tasks: TaskRecord[] = [];
  taskDefs = new Map<string, TaskDef>();
  now = T0;
  randomValue = 0;
  highPriorityThreshold = 50;
  maxForkBranches = 10_000;
  maxOutputBytes = 64 * 1024 * 1024;
  /** `EngineSettings.queueRunAgeMs`: unset, tasks queue strictly in order (queue-order.test.ts sets it). */
  queueRunAgeMs: number | undefined = undefined;
  scripts: ScriptRunner = noScripts;
  /** Checks after every decide that it left its inputs alone (costs a copy of the run: off for big runs). */
  verifyInputs = true;
  private ids = 0;

  constructor(def: WorkflowDef, runExtra: Partial<NewRunInput> = {}, taskDefs: TaskDef[] = []) {
    this.run = newRun(def, runExtra);
    for (const taskDef of taskDefs) this.taskDefs.set(taskDef.name, taskDef);
  }

  context(): DecideContext {
    return deepFreeze({
      run: this.run,
      tasks: this.tasks,
      taskDefs: this.taskDefs,
      now: this.now,
      newId: () => `t${++this.ids}`,
      random: () => this.randomValue,
      settings: {
        highPriorityThreshold: this.highPriorityThreshold,
        maxForkBranches: this.maxForkBranches,
        maxOutputBytes: this.maxOutputBytes,
        ...(this.queueRunAgeMs !== undefined && { queueRunAgeMs: this.queueRunAgeMs }),
      },
      scripts: this.scripts,
    });
  }

  /** Runs decide on the current state, checks it left its inputs alone, and applies the decision. */
  send(event: EngineEvent): Decision {
    const ctx = this.verifyInputs ? this.context() : this.plainContext();
    const before = this.verifyInputs ? JSON.stringify({ run: ctx.run, tasks: ctx.tasks }) : '';
    const decision = decide(ctx, event);
    if (this.verifyInputs && JSON.stringify({ run: ctx.run, tasks: ctx.tasks }) !== before)
      throw new Error('decide changed its inputs');
    this.apply(decision);
    return decision;
  }

  /** The context without freezing (for runs too big to freeze on every step). */
  plainContext(tasks: readonly TaskRecord[] = this.tasks): DecideContext {
    return {
      run: this.run,
      tasks,
      taskDefs: this.taskDefs,
      now: this.now,
      newId: () => `t${++this.ids}`,
      random: () => this.randomValue,
      settings: {
        highPriorityThreshold: this.highPriorityThreshold,
        maxForkBranches: this.maxForkBranches,
        maxOutputBytes: this.maxOutputBytes,
        ...(this.queueRunAgeMs !== undefined && { queueRunAgeMs: this.queueRunAgeMs }),
      },
      scripts: this.scripts,
    };
  }

  apply(decision: Decision): void {
    this.run = decision.run;
    if (decision.updatedTasks.length > 0) {
      const position = new Map(this.tasks.map((t, i) => [t.taskId, i]));
      const tasks = [...this.tasks];
      for (const t of decision.updatedTasks) {
        const i = position.get(t.taskId);
        if (i !== undefined) tasks[i] = t;
      }
      this.tasks = tasks;
    }
    if (decision.newTasks.length > 0) {
      this.tasks = [...this.tasks, ...decision.newTasks].sort((a, b) => a.seq - b.seq);
    }
  }

  /** A durable timer of this run comes due. */
  timer(timer: Omit<FiredTimer, 'workflowId'>): Decision {
    return this.send({ type: 'TIMER', timer: { ...timer, workflowId: this.run.workflowId } });
  }

  /** Every task with this ref (all attempts), in seq order. */
  all(ref: string): TaskRecord[] {
    return this.tasks.filter((t) => t.referenceTaskName === ref);
  }

  /** The open tasks, in seq order. */
  open(): TaskRecord[] {
    return this.tasks.filter((t) => !isTerminalTaskStatus(t.status));
  }

  start(): Decision {
    return this.send({ type: 'START' });
  }

  result(taskId: string, status: TaskResult['status'], extra: Partial<TaskResult> = {}): Decision {
    return this.send({
      type: 'TASK_RESULT',
      result: { taskId, workflowInstanceId: this.run.workflowId, status, ...extra },
    });
  }

  complete(taskId: string, outputData: JsonObject = {}): Decision {
    return this.result(taskId, 'COMPLETED', { outputData });
  }

  fail(taskId: string, reason = 'boom'): Decision {
    return this.result(taskId, 'FAILED', { reasonForIncompletion: reason });
  }

  task(ref: string): TaskRecord {
    const found = [...this.tasks].reverse().find((t) => t.referenceTaskName === ref);
    if (!found) throw new Error(`no task ${ref}`);
    return found;
  }
}
