import type { JsonObject, JsonValue, TaskRecord } from '@baton/protocol';
import type { RunState } from '../run-state.js';

/**
 * The bound on an output the engine assembles from other tasks' outputs: a JOIN's from its
 * branches, a DO_WHILE's from its iterations (`EngineSettings.maxOutputBytes`). Each part was
 * bounded where it came in, their sum is not: a join over ten thousand branches of a few MB each
 * would make one record of tens of GB, read by every later decision on the run, and a node that
 * tried would run out of memory, then the next node that took the run. Over the bound the task
 * fails with a terminal error in Conductor's words (its `maxTaskOutputPayloadSizeThreshold`), and
 * keeps no output.
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
    size += utf8Length(JSON.stringify(key)) + 1 + utf8Length(JSON.stringify(value) ?? 'null');
    if (size > limit) return { size, whole: i === entries.length - 1 };
  }
  return { size, whole: true };
}

/** UTF-8 bytes of a string, without encoding it. */
function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (code >= 0xd800 && code <= 0xdbff) {
      // A surrogate pair (JSON.stringify escapes a lone one): 4 bytes for its 2 units.
      bytes += 2;
      i++;
    } else bytes += 2;
  }
  return bytes;
}

/**
 * Why `task` cannot take an output made of `entries` (Conductor's message, then the setting and
 * what to do), or undefined when it fits.
 */
export function assembledOutputRefusal(
  state: RunState,
  task: TaskRecord,
  entries: ReadonlyArray<readonly [string, JsonValue]>,
): string | undefined {
  const limit = state.ctx.settings.maxOutputBytes;
  const { size, whole } = jsonSizeUpTo(entries, limit);
  if (size <= limit) return undefined;
  const parts = task.taskType === 'DO_WHILE' ? 'iteration' : 'branch';
  return (
    `The payload size: ${whole ? size : `over ${size}`} of task: ${task.taskId} in workflow: ${task.workflowInstanceId} is greater than the permissible limit: ${limit} bytes` +
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
