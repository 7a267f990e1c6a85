import type { TaskRecord } from '@baton/protocol';
import type { RunState } from '../run-state.js';
import type { Signal } from './kind.js';

/**
 * Ends an open task that a signal reached (WAIT without a timer, HUMAN): the signal's status,
 * its payload as the task's output. A failing signal names itself as the reason, so the run's
 * failure says where it came from. The executor cancels the task's timers as it ends.
 */
export function endBySignal(state: RunState, task: TaskRecord, signal: Signal): 'changed' {
  const now = state.now;
  state.updateTask(task, {
    status: signal.status,
    outputData: structuredClone(signal.output),
    endTime: now,
    updateTime: now,
    ...(signal.status !== 'COMPLETED' && { reasonForIncompletion: `Signaled ${signal.status}` }),
  });
  return 'changed';
}
