/**
 * Queues a poll drains, in order: the high-priority queue first
 * (docs/design/task-lifecycle.md#queues).
 */
export function pollQueues(taskType: string, domain?: string): string[] {
  const base = domain ? `${domain}-${taskType}` : taskType;
  return [`${base}-high`, base];
}
