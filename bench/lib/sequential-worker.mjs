// The linear workflow the scale scenario runs (SIMPLE steps, each passing the previous step's
// small payload on) and one worker that drives its steps strictly one after another, so that
// what it measures is the cost of a step, not throughput.
import { performance } from 'node:perf_hooks';

import { linearWorkflow, stepTaskDef } from './linear-workflow.mjs';
import { stepPayload } from './payload.mjs';

/** Registers `taskType` and a workflow `name` of `steps` SIMPLE steps of that type. */
export async function registerLinearWorkflow(api, { name, taskType, steps }) {
  await api.registerTaskDefs([stepTaskDef(taskType)]);
  await api.registerWorkflow(
    linearWorkflow({
      name,
      taskType,
      steps,
      inputsOf: (step) => ({ step, payload: step === 0 ? '${workflow.input}' : `\${s${step - 1}.output}` }),
    }),
  );
}

/**
 * Completes `steps` tasks of `taskType` one at a time: a batch poll when it holds no task, then
 * update-v2, which completes the task and hands out the next one. Answers one sample per step:
 * the ms of the update-v2 that completed it, plus the poll's if a poll handed it out.
 */
export async function driveSequentially(api, taskType, steps) {
  const { samples, task } = await driveSteps(api, taskType, steps);
  if (task) throw new Error(`a ${taskType} task was left over after ${steps} steps`);
  return samples;
}

/**
 * driveSequentially's loop, starting from `task` when one is held (handed out by the last step of
 * an earlier call): answers the samples and the task the last update-v2 handed out, if any, so
 * that a caller can time the steps in blocks.
 */
export async function driveSteps(api, taskType, steps, held = undefined) {
  const samples = [];
  let task = held;
  let pollMs = 0;
  let emptyPolls = 0;
  while (samples.length < steps) {
    if (!task) {
      const polled = performance.now();
      [task] = await api.poll(taskType, { count: 1, timeoutMs: 1000 });
      pollMs = performance.now() - polled;
      if (!task) {
        if (++emptyPolls === 5)
          throw new Error(`no ${taskType} task after ${samples.length} of ${steps} steps`);
        continue;
      }
    }
    const started = performance.now();
    const output = stepPayload(task.workflowInstanceId, task.inputData.step);
    const next = await api.completeAndTakeNext(task, output);
    samples.push(pollMs + performance.now() - started);
    pollMs = 0;
    task = next;
  }
  return { samples, task };
}

/** Starts `count` runs one after another; answers their ids and each start's ms. */
export async function startSequentially(api, name, count, firstRun = 0) {
  const ids = [];
  const samples = [];
  for (let run = firstRun; run < firstRun + count; run++) {
    const started = performance.now();
    ids.push(await api.startRun(name, stepPayload(run, 0)));
    samples.push(performance.now() - started);
  }
  return { ids, samples };
}
