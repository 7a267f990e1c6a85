import type { TaskRecord } from '@baton/protocol';

import { documentRefOf } from '../engine/index.js';
import { type LatestByNameRow, latestByNameRows } from './decide-set.js';

/**
 * Which `task_latest` rows a transaction's task writes must keep (store/ARCHITECTURE.md, "The
 * decide set"). A run is in one of two states:
 *
 *   - **by name**: `task_latest` has a row for every name of the run, pointing at its latest
 *     task, as on every run before schema step `latest-by-name-on-repeat`. The decide set reads
 *     it, and every write upserts the rows of the tasks it wrote.
 *   - **unnamed**: the run has no `task_latest` rows, and no two of its tasks share a name. Then
 *     the latest task of each name is simply every task of the run, and the decide set reads them
 *     all through `tasks_workflow_seq`, bounded by the run's size as the table would be.
 *
 * A run starts unnamed, and most runs stay so: a straight line, a fork or a switch never repeats a
 * name, and each of their steps writes one row less. The first write that gives a name a second
 * task (a retry, a loop's next iteration) writes the rows of every name at once and makes the
 * run by name for good. Only a transaction that knows all of a run's names can tell: it learns
 * them from the decide set (read with the run's lock, which holds every task of an unnamed run),
 * from every task of the run, or from having inserted the run itself; a write to a run it has
 * not learned reads the decide set first.
 *
 * Both stores follow the rule; which of the two modes a node writes in is its store's to say. On
 * PostgreSQL it is the database's setting (store-postgres/latest-by-name.ts): `on-repeat` as above
 * on a database schema step `latest-by-name-on-repeat` made; `every-task` on one upgraded to it,
 * where nodes of an earlier release may still run and write a run only the rows of the tasks they
 * write. Under `every-task` every write makes its run by name (all its names at once if it was
 * not), so an upgraded database keeps rows for every run, and a run made unnamed before a switch
 * back is made whole again. SQLite, whose file one process owns, writes `on-repeat` since schema
 * step `embedded-latest-by-name-on-repeat` (the runs an earlier release wrote have a row for every
 * name and stay by name).
 */
export class LatestByName {
  private readonly runs = new Map<string, RunNames>();

  constructor(private readonly mode: LatestByNameMode = 'every-task') {}

  /**
   * The decide set of a run, read under its lock. `byName` comes with its rows: whether the run has
   * `task_latest` rows (undefined when no row came back to carry it).
   */
  learnDecideSet(workflowId: string, tasks: readonly TaskRecord[], byName: boolean | undefined): void {
    this.runs.set(workflowId, { byName, latest: latestOf(tasks) });
  }

  /** A run this transaction inserted: it has no tasks yet. */
  learnNewRun(workflowId: string): void {
    this.runs.set(workflowId, { byName: false, latest: new Map() });
  }

  /** Every task of a run; whether it has `task_latest` rows stays as known. */
  learnAllTasks(workflowId: string, tasks: readonly TaskRecord[]): void {
    this.runs.set(workflowId, { byName: this.runs.get(workflowId)?.byName, latest: latestOf(tasks) });
  }

  /** A run whose rows are gone (archived): as new, if it were ever written again. */
  forget(workflowId: string): void {
    this.runs.delete(workflowId);
  }

  /** Runs among `tasks` this transaction must learn before it can write them. */
  unknownRuns(tasks: readonly TaskRecord[]): string[] {
    const unknown = new Set<string>();
    for (const task of tasks) {
      const run = this.runs.get(task.workflowInstanceId);
      if (run === undefined || run.byName === undefined) unknown.add(task.workflowInstanceId);
    }
    return [...unknown];
  }

  /**
   * The `task_latest` rows to upsert for tasks about to be written (every run among them learned),
   * and what the transaction then knows of their runs.
   */
  rowsFor(tasks: readonly TaskRecord[]): LatestByNameRow[] {
    const byRun = new Map<string, TaskRecord[]>();
    for (const task of tasks) {
      const list = byRun.get(task.workflowInstanceId);
      if (list) list.push(task);
      else byRun.set(task.workflowInstanceId, [task]);
    }
    const rows: LatestByNameRow[] = [];
    for (const [workflowId, written] of byRun) {
      const run = this.runs.get(workflowId);
      if (run === undefined || run.byName === undefined)
        throw new Error(`latest by name: run ${workflowId} was not learned before its tasks were written`);
      let repeated = false;
      for (const task of written) {
        const name = documentRefOf(task);
        const current = run.latest.get(name);
        if (current !== undefined && current.taskId !== task.taskId) repeated = true;
        if (current === undefined || current.seq <= task.seq)
          run.latest.set(name, { workflowId, name, seq: task.seq, taskId: task.taskId });
      }
      if (run.byName) rows.push(...latestByNameRows(written));
      else if (repeated || this.mode === 'every-task') {
        run.byName = true;
        rows.push(...run.latest.values());
      }
    }
    return rows;
  }
}

interface RunNames {
  /** Whether the run has `task_latest` rows; undefined: not known yet. */
  byName: boolean | undefined;
  /** The latest task of each name this transaction has seen (all of them while unnamed). */
  latest: Map<string, LatestByNameRow>;
}

function latestOf(tasks: readonly TaskRecord[]): Map<string, LatestByNameRow> {
  return new Map(latestByNameRows(tasks).map((row) => [row.name, row]));
}

/** What a node writes to `task_latest` (the class above). */
export type LatestByNameMode = 'every-task' | 'on-repeat';
