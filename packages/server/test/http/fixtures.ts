/** Definitions shared by the HTTP suites. */
export function threeStepWorkflow(name = 'three_steps', taskPrefix = 'http'): Record<string, unknown> {
  return {
    name,
    description: 'a → b → c, each a worker task',
    schemaVersion: 2,
    ownerEmail: 'dev@example.com',
    tasks: [
      {
        name: `${taskPrefix}_a`,
        taskReferenceName: 'a',
        type: 'SIMPLE',
        inputParameters: { x: '${workflow.input.x}' },
      },
      {
        name: `${taskPrefix}_b`,
        taskReferenceName: 'b',
        type: 'SIMPLE',
        inputParameters: { fromA: '${a.output.y}' },
      },
      {
        name: `${taskPrefix}_c`,
        taskReferenceName: 'c',
        type: 'SIMPLE',
        inputParameters: { all: 'a=${a.output.y} b=${b.output.z}' },
      },
    ],
    outputParameters: { final: '${c.output.done}', fromA: '${a.output.y}' },
  };
}

export function taskDefs(
  taskPrefix = 'http',
  extra: Record<string, unknown> = {},
): Array<Record<string, unknown>> {
  return ['a', 'b', 'c'].map((s) => ({
    name: `${taskPrefix}_${s}`,
    retryCount: 0,
    timeoutSeconds: 0,
    responseTimeoutSeconds: 60,
    ownerEmail: 'dev@example.com',
    ...extra,
  }));
}
