import { isTerminalTaskStatus, type TaskRecord } from '@baton/protocol';

import type { EngineEvent } from '../engine/index.js';
import type { Tx } from '../store/store.js';

/**
 * The tasks a decision on an existing run is given (engine ARCHITECTURE.md, "Cost of a step").
 * The events a run's own progress sends (results, timers, children, requeues, re-evaluation)
 * get the store's decide set plus what the interpreter may look up by id beyond it; operator
 * actions, signals and the mailbox (not the hot path; some read every task) get every task.
 */
export async function loadDecideTasks(tx: Tx, workflowId: string, event: EngineEvent): Promise<TaskRecord[]> {
  const targets = eventTaskIds(event);
  if (targets === null) return tx.getRunTasks(workflowId);
  const tasks = await tx.getDecideTasks(workflowId);
  const byId = new Map(tasks.map((task) => [task.taskId, task]));
  // The event's tasks (a late result, a timer of an ended task: the interpreter answers "ignored"
  // from its record), and the earlier attempts of every task that may be retried or reopened
  // (the first attempt's scheduled time bounds `totalTimeoutSeconds`).
  const chainFrom = tasks.filter((task) => !isTerminalTaskStatus(task.status) || !task.executed);
  const follow = (from: readonly TaskRecord[]): string[] => [
    ...new Set(
      from.flatMap((task) =>
        task.retriedTaskId !== undefined && !byId.has(task.retriedTaskId) ? [task.retriedTaskId] : [],
      ),
    ),
  ];
  const missing: string[] = [];
  for (const target of targets) {
    const targetTask = byId.get(target);
    if (targetTask) chainFrom.push(targetTask);
    else missing.push(target);
  }
  let wanted = [...new Set([...follow(chainFrom), ...missing])];
  while (wanted.length > 0) {
    const found = (await tx.getTasks(wanted)).filter((task) => task.workflowInstanceId === workflowId);
    for (const task of found) byId.set(task.taskId, task);
    wanted = follow(found);
  }
  if (byId.size === tasks.length) return tasks;
  return [...byId.values()].sort(
    (a, b) => a.seq - b.seq || (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0),
  );
}

/**
 * The tasks an event names (none, or several for TASK_RESULTS), or null for the events that
 * load every task.
 */
function eventTaskIds(event: EngineEvent): readonly string[] | null {
  switch (event.type) {
    case 'TASK_RESULT':
      return [event.result.taskId];
    case 'TASK_RESULTS':
      return event.results.map((r) => r.result.taskId);
    case 'TIMER':
      return event.timer.taskId === undefined ? [] : [event.timer.taskId];
    case 'CHILD_ENDED':
    case 'CHILD_NOT_STARTED':
    case 'REQUEUE_TASK':
      return [event.taskId];
    case 'DECIDE':
    case 'START':
    case 'FAULT':
      return [];
    case 'PARENT_ENDED':
    case 'CHILD_RETRIED':
    case 'PAUSE':
    case 'RESUME':
    case 'TERMINATE':
    case 'SKIP_TASK':
    case 'SIGNAL':
    case 'MAILBOX':
    case 'RERUN_FROM':
      return null;
  }
}
