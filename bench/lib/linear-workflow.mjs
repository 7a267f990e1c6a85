// The workflow every Baton measurement runs: `steps` SIMPLE tasks of one type in a row, and the
// task definition of that type (no retries, a long response timeout, no other timers).

/** The definition of `taskType` the benchmark workers serve. */
export function stepTaskDef(taskType) {
  return {
    name: taskType,
    retryCount: 0,
    responseTimeoutSeconds: 300,
    timeoutSeconds: 0,
    ownerEmail: 'bench@example.com',
  };
}

/** `name`: `steps` SIMPLE tasks of `taskType`; `inputsOf(k)` is step k's inputParameters. */
export function linearWorkflow({ name, taskType, steps, inputsOf }) {
  return {
    name,
    version: 1,
    ownerEmail: 'bench@example.com',
    schemaVersion: 2,
    tasks: Array.from({ length: steps }, (_, k) => ({
      name: taskType,
      taskReferenceName: `s${k}`,
      type: 'SIMPLE',
      inputParameters: inputsOf(k),
    })),
  };
}
