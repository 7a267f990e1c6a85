import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';

/** a → b → c, each a worker task, chained through their outputs. */
export function threeStepWorkflow(name = 'three_steps', taskPrefix = 'http'): Record<string, unknown> {
  return workflowDef(
    name,
    [
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
    { final: '${c.output.done}', fromA: '${a.output.y}' },
  );
}

export function taskDefs(taskPrefix = 'http'): Array<Record<string, unknown>> {
  return workerTaskDefs(['a', 'b', 'c'].map((s) => `${taskPrefix}_${s}`));
}
