import type { RunRecord, TaskLog, TaskRecord } from '@baton/protocol';

import type { PortAccess } from './access.js';

/** Runs and their tasks: the rows a decision reads and writes under the run's lock. */
export interface RunsPort {
  // --- runs
  insertRun(run: RunRecord): Promise<void>;
  getRun(workflowId: string): Promise<RunRecord | undefined>;
  /** Reads the run and locks its row until the transaction ends (one writer per run). */
  lockRun(workflowId: string): Promise<RunRecord | undefined>;
  updateRun(run: RunRecord): Promise<void>;
  countRunsOfVersion(name: string, version: number): Promise<number>;
  runsByCorrelationId(name: string, correlationId: string, includeClosed: boolean): Promise<RunRecord[]>;

  // --- tasks
  insertTasks(tasks: readonly TaskRecord[]): Promise<void>;
  updateTasks(tasks: readonly TaskRecord[]): Promise<void>;
  /**
   * Compare-and-set for writers that do not hold the run lock (hand-out): writes each record only
   * if the stored task is still open (SCHEDULED or IN_PROGRESS), so a task that has just ended is
   * never reopened. Answers the ids that were written.
   */
  updateOpenTasks(tasks: readonly TaskRecord[]): Promise<string[]>;
  getTask(taskId: string): Promise<TaskRecord | undefined>;
  /**
   * The task, read once run `workflowId` is locked as `lockRun` locks it: a worker's result names
   * its run, so the lock its decision takes next goes in the same round trip as the task read. A
   * `lockRun` of that run right after (nothing sent in between) answers without a statement. The
   * task may belong to another run: the caller checks, as after `getTask`. Where transactions are
   * serialised (SQLite) it is `getTask`.
   */
  getTaskLockingRun(taskId: string, workflowId: string): Promise<TaskRecord | undefined>;
  /**
   * `getTaskLockingRun` for several tasks named by results for one run, in the same one round
   * trip: each task (undefined: none by that id), in the order asked.
   */
  getTasksLockingRun(taskIds: readonly string[], workflowId: string): Promise<Array<TaskRecord | undefined>>;
  getTasks(taskIds: readonly string[]): Promise<TaskRecord[]>;
  /** All tasks of a run, ordered by seq. */
  getRunTasks(workflowId: string): Promise<TaskRecord[]>;
  /**
   * The tasks a decision on this run needs, ordered by seq: every open task, every ended task
   * not yet acted on (`executed` false), and the latest task (highest seq) of every name of the
   * expression document (a ref without loop suffixes). Bounded by the run's definition and what
   * is in flight, not by how many tasks the run has made (ARCHITECTURE.md "The decide set").
   */
  getDecideTasks(workflowId: string): Promise<TaskRecord[]>;
  appendTaskLogs(logs: readonly TaskLog[]): Promise<void>;
  getTaskLogs(taskId: string): Promise<TaskLog[]>;
}

/** Which `RunsPort` methods write (refused inside `read()`); every method is checked (tx-access.ts). */
export const RUNS_ACCESS = {
  insertRun: 'write',
  getRun: 'read',
  lockRun: 'read',
  updateRun: 'write',
  countRunsOfVersion: 'read',
  runsByCorrelationId: 'read',
  insertTasks: 'write',
  updateTasks: 'write',
  updateOpenTasks: 'write',
  getTask: 'read',
  getTaskLockingRun: 'read',
  getTasksLockingRun: 'read',
  getTasks: 'read',
  getRunTasks: 'read',
  getDecideTasks: 'read',
  appendTaskLogs: 'write',
  getTaskLogs: 'read',
} as const satisfies PortAccess<RunsPort>;
