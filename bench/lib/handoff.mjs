// Hand-off latency: the time from one step's completion (its work is done; telling the system,
// which for a queue means adding the next job and for Baton posting the result, is part of the
// hand-off) to the next step of the same run starting (its handler was called). Both ends are
// taken in the process that runs the handlers, on one monotonic clock.
import { performance } from 'node:perf_hooks';

export class HandoffRecorder {
  #ended = new Map();
  /** Latencies in ms, one per hand-off seen. */
  samples = [];

  /** Step `step` (0-based) of run `run` has completed. */
  ended(run, step) {
    this.#ended.set(`${run}:${step}`, performance.now());
  }

  /** Step `step` of run `run` is starting: records the hand-off from step - 1, if seen. */
  started(run, step) {
    if (step === 0) return;
    const key = `${run}:${step - 1}`;
    const at = this.#ended.get(key);
    if (at === undefined) return;
    this.#ended.delete(key);
    this.samples.push(performance.now() - at);
  }
}
