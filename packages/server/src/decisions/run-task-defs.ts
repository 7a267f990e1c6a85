import type { StoredTaskDef, TaskRecord, WorkflowDef } from '@baton/protocol';
import { workerTaskNames, type Decision } from '../engine/index.js';
import type { Tx } from '../store/store.js';

/**
 * The task definitions a decision for a run may need. A dynamically named worker task (a
 * DYNAMIC task or a FORK_JOIN_DYNAMIC branch whose name comes from an expression) is not in the
 * definition: its type is learnt from the run's tasks once it exists, and from a first decision
 * that made it (`withTaskDefsOf`). Conductor's mappers look each one's TaskDef up too, so its
 * retryCount, timeouts and limits apply, not the defaults.
 */
export async function taskDefsForRun(
  tx: Tx,
  definition: WorkflowDef,
  tasks: readonly TaskRecord[],
): Promise<LoadedTaskDefs> {
  const asked = new Set(workerTaskNames(definition));
  for (const task of tasks) if (task.queueName !== undefined) asked.add(task.taskDefName);
  return { defs: await tx.getTaskDefs([...asked]), asked };
}

/** Task definitions read for a decision, and every name asked for (registered or not). */
export interface LoadedTaskDefs {
  readonly defs: Map<string, StoredTaskDef>;
  readonly asked: ReadonlySet<string>;
}

/**
 * Decides once; when the decision made or changed worker tasks whose definitions were never
 * asked for (a name known only at run time) and that are registered, loads them and decides
 * again (decide is pure, so the first answer is simply dropped). A name already asked for and
 * not registered (a SIMPLE task on defaults) costs no second read.
 */
export async function withTaskDefsOf(
  tx: Tx,
  loaded: LoadedTaskDefs,
  decideWith: (taskDefs: Map<string, StoredTaskDef>) => Promise<Decision>,
): Promise<Decision> {
  const first = await decideWith(loaded.defs);
  const missing = new Set<string>();
  for (const task of [...first.newTasks, ...first.updatedTasks]) {
    if (task.queueName !== undefined && !loaded.asked.has(task.taskDefName)) missing.add(task.taskDefName);
  }
  if (missing.size === 0) return first;
  const found = await tx.getTaskDefs([...missing]);
  if (found.size === 0) return first;
  return decideWith(new Map([...loaded.defs, ...found]));
}
