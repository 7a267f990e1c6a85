import type { JsonObject, JsonValue, TaskRecord } from '@baton/protocol';
import type { RunState } from './run-state.js';
import { withinDepth } from '../bounds/json-shape.js';
import { MAX_RECORD_DEPTH } from '../bounds/ranges.js';

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
 * (its `maxTaskOutputPayloadSizeThreshold` and siblings), and the payload is not kept. The same
 * holds for depth (MAX_RECORD_DEPTH): parameters that nest a value inside itself grow it a level a
 * step, and a record deep enough to overflow the stack when serialized would fail every decision.
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

/**
 * How `payload` is over the bounds: nested deeper than MAX_RECORD_DEPTH (checked first, without
 * recursion: the size count serializes, which such a value would overflow), or its size when it
 * is over the byte bound ("over N" when counting stopped); undefined when it keeps both.
 */
function overBounds(state: RunState, payload: JsonObject): { depth: true } | { size: string } | undefined {
  if (!withinDepth(payload, MAX_RECORD_DEPTH)) return { depth: true };
  const { size, whole } = jsonSizeUpTo(Object.entries(payload), state.ctx.settings.maxOutputBytes);
  if (size <= state.ctx.settings.maxOutputBytes) return undefined;
  return { size: whole ? String(size) : `over ${size}` };
}

/** The words for a payload nested too deep, after what holds it. */
const TOO_DEEP = `is nested deeper than ${MAX_RECORD_DEPTH} levels (the limit of what the engine assembles)`;

/**
 * Why a JOIN or DO_WHILE cannot take the output it assembled (Conductor's message, then the
 * setting and what to do), or undefined when it fits.
 */
export function assembledOutputRefusal(
  state: RunState,
  task: TaskRecord,
  output: JsonObject,
): string | undefined {
  const over = overBounds(state, output);
  if (over === undefined) return undefined;
  const parts = task.taskType === 'DO_WHILE' ? 'iteration' : 'branch';
  if ('depth' in over)
    return `The output of task: ${task.taskId} in workflow: ${task.workflowInstanceId} ${TOO_DEEP}: a ${task.taskType}'s output holds every ${parts}'s output`;
  const size = over.size;
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
  const over = overBounds(state, task.inputData);
  if (over === undefined) return undefined;
  if ('depth' in over)
    return `The input of task: ${task.referenceTaskName} in workflow: ${task.workflowInstanceId} ${TOO_DEEP}: its inputParameters nest the values they name inside each other`;
  const size = over.size;
  return (
    `The input payload size: ${size} of task: ${task.referenceTaskName} in workflow: ${task.workflowInstanceId} is greater than the permissible limit: ${state.ctx.settings.maxOutputBytes} bytes` +
    ' (BATON_PAYLOAD_MAX_BYTES: its inputParameters resolve to that much; pass large payloads on by their external storage paths)'
  );
}

/** Why the run cannot end with `output` (Conductor's message for a workflow's output), or undefined. */
export function runOutputRefusal(state: RunState, output: JsonObject): string | undefined {
  const over = overBounds(state, output);
  if (over === undefined) return undefined;
  if ('depth' in over)
    return `The output of workflow: ${state.run.workflowId} ${TOO_DEEP}: its outputParameters nest the values they name inside each other`;
  const size = over.size;
  return (
    `The output payload size: ${size}B of workflow: ${state.run.workflowId} is greater than the permissible limit: ${state.ctx.settings.maxOutputBytes} bytes` +
    ' (BATON_PAYLOAD_MAX_BYTES: its outputParameters resolve to that much; pass large payloads on by their external storage paths)'
  );
}
