import type { JsonObject, JsonValue, TaskRecord } from '@baton/protocol';
import type { RunState } from './run-state.js';

/**
 * Bounds on the payloads the engine makes from other payloads (`EngineSettings.maxOutputBytes`,
 * BATON_PAYLOAD_MAX_BYTES), counted in UTF-8 bytes of their JSON: a JOIN's output from its
 * branches', a DO_WHILE's from its iterations', a task's input and a run's output from
 * expressions. Each payload that comes in from outside is bounded where it comes in; what the
 * engine assembles from them is not, and a definition can name one output many times over: a join
 * over ten thousand branches of a few MB each, or an input naming a 50 MB output a hundred times,
 * would make one record of GBs, read by every later decision on the run, and a node that tried
 * would run out of memory, then the next node that took the run. Over the bound the task fails
 * with a terminal error (or the run, for an input or the run's output), in Conductor's words
 * (its `maxTaskOutputPayloadSizeThreshold` and siblings), and the payload is not kept.
 */

/**
 * The size in bytes of `{...entries}` as JSON, counted until it passes `limit`: past it the
 * rest is not serialized (it could be far larger than memory), and `whole` is false.
 */
function jsonSizeUpTo(
  entries: ReadonlyArray<readonly [string, JsonValue]>,
  limit: number,
): { size: number; whole: boolean } {
  let size = 2; // {}
  for (let i = 0; i < entries.length; i++) {
    const [key, value] = entries[i] as readonly [string, JsonValue];
    if (i > 0) size += 1; // ,
    // UTF-8 bytes, counted natively without encoding the text.
    size += Buffer.byteLength(JSON.stringify(key)) + 1 + Buffer.byteLength(JSON.stringify(value) ?? 'null');
    if (size > limit) return { size, whole: i === entries.length - 1 };
  }
  return { size, whole: true };
}

/** The size of `payload` when it is over the bound ("over N" when counting stopped), else undefined. */
function sizeOver(state: RunState, payload: JsonObject): string | undefined {
  const { size, whole } = jsonSizeUpTo(Object.entries(payload), state.ctx.settings.maxOutputBytes);
  if (size <= state.ctx.settings.maxOutputBytes) return undefined;
  return whole ? String(size) : `over ${size}`;
}

/**
 * Why a JOIN or DO_WHILE cannot take the output it assembled (Conductor's message, then the
 * setting and what to do), or undefined when it fits.
 */
export function assembledOutputRefusal(
  state: RunState,
  task: TaskRecord,
  output: JsonObject,
): string | undefined {
  const size = sizeOver(state, output);
  if (size === undefined) return undefined;
  const parts = task.taskType === 'DO_WHILE' ? 'iteration' : 'branch';
  return (
    `The payload size: ${size} of task: ${task.taskId} in workflow: ${task.workflowInstanceId} is greater than the permissible limit: ${state.ctx.settings.maxOutputBytes} bytes` +
    ` (BATON_PAYLOAD_MAX_BYTES: a ${task.taskType}'s output holds every ${parts}'s output; keep large outputs in external storage and pass on their paths)`
  );
}

/** Ends `task` FAILED_WITH_TERMINAL_ERROR for an output over the bound, keeping none of it. */
export function failForAssembledOutput(state: RunState, task: TaskRecord, reason: string): void {
  const output: JsonObject = {};
  state.updateTask(task, {
    status: 'FAILED_WITH_TERMINAL_ERROR',
    reasonForIncompletion: reason,
    outputData: output,
    endTime: state.now,
    updateTime: state.now,
  });
}

/** Why a task about to be scheduled cannot take the input its parameters resolved to, or undefined. */
export function inputRefusal(state: RunState, task: TaskRecord): string | undefined {
  const size = sizeOver(state, task.inputData);
  if (size === undefined) return undefined;
  return (
    `The input payload size: ${size} of task: ${task.referenceTaskName} in workflow: ${task.workflowInstanceId} is greater than the permissible limit: ${state.ctx.settings.maxOutputBytes} bytes` +
    ' (BATON_PAYLOAD_MAX_BYTES: its inputParameters resolve to that much; pass large payloads on by their external storage paths)'
  );
}

/** Why the run cannot end with `output` (Conductor's message for a workflow's output), or undefined. */
export function runOutputRefusal(state: RunState, output: JsonObject): string | undefined {
  const size = sizeOver(state, output);
  if (size === undefined) return undefined;
  return (
    `The output payload size: ${size}B of workflow: ${state.run.workflowId} is greater than the permissible limit: ${state.ctx.settings.maxOutputBytes} bytes` +
    ' (BATON_PAYLOAD_MAX_BYTES: its outputParameters resolve to that much; pass large payloads on by their external storage paths)'
  );
}
