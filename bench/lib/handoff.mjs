// Hand-off latency: the time from one step's completion (its work is done; telling the system,
// which for a queue means adding the next job and for Baton posting the result, is part of the
// hand-off) to the next step of the same run starting (its handler was called). Both ends are
// taken in the process that runs the handlers, on one monotonic clock. In a shape that branches,
// a step's hand-off runs from the end of the last step it waited for.
import { performance } from 'node:perf_hooks';

export class HandoffRecorder {
  #ended = new Map();
  /** Latencies in ms, one per hand-off seen. */
  samples = [];

  /** Step `step` (0-based) of run `run` has completed. */
  ended(run, step) {
    this.#ended.set(`${run}:${step}`, performance.now());
  }

  /**
   * Step `step` of run `run` is starting: records the hand-off from the end of step - 1, if seen.
   * `before`, when given, names the steps whose ends make this one ready (a branching shape): the
   * hand-off runs from the last of them, and their ends are kept for the other steps they precede.
   */
  started(run, step, before) {
    if (before === undefined) {
      if (step === 0) return;
      const key = `${run}:${step - 1}`;
      const at = this.#ended.get(key);
      if (at === undefined) return;
      this.#ended.delete(key);
      this.samples.push(performance.now() - at);
      return;
    }
    if (before.length === 0) return;
    let ready = -Infinity;
    for (const k of before) {
      const at = this.#ended.get(`${run}:${k}`);
      if (at === undefined) return;
      ready = Math.max(ready, at);
    }
    this.samples.push(performance.now() - ready);
  }

  /** Forgets what was kept of run `run` (its last step has ended). */
  forget(run, steps) {
    for (let k = 0; k < steps; k++) this.#ended.delete(`${run}:${k}`);
  }
}
