/** Definition builders shared by the HTTP and end-to-end suites. */
export function workerTaskDefs(
  names: readonly string[],
  extra: Record<string, unknown> = {},
): Array<Record<string, unknown>> {
  return names.map((name) => ({
    name,
    retryCount: 0,
    responseTimeoutSeconds: 60,
    timeoutSeconds: 0,
    ownerEmail: 'dev@baton.test',
    ...extra,
  }));
}

export function workflowDef(
  name: string,
  tasks: Array<Record<string, unknown>>,
  outputParameters: Record<string, unknown> = {},
): Record<string, unknown> {
  // No version: registration assigns the next one (1 for a new name).
  return { name, schemaVersion: 2, ownerEmail: 'dev@baton.test', tasks, outputParameters };
}
