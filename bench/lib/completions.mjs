// Which runs a queue-based peer has finished, and bounded waits for them: a peer that stalls,
// loses a step or keeps retrying a failing handler must fail the benchmark with a clear message
// rather than hang it.
import { performance } from 'node:perf_hooks';

/** No run of the benchmark, however large, is expected to need longer than this. */
export const TIME_LIMIT_MS = 10 * 60_000;

export class Completions {
  #label;
  #deadline;
  #waiters = new Map();
  #finished = new Set();
  #fail;
  #failed;
  #all;
  #allDone;
  /** Handler calls that returned (every step, not only the last ones). */
  steps = 0;

  /** `label` names the system in errors; `runs` is how many runs must finish. */
  constructor(label, runs, limitMs = TIME_LIMIT_MS) {
    this.#label = label;
    this.runs = runs;
    this.#deadline = performance.now() + limitMs;
    this.#failed = new Promise((_, reject) => {
      this.#fail = reject;
    });
    // Observed by every wait(); this keeps an early failure from being reported as unhandled.
    this.#failed.catch(() => {});
    this.#allDone = new Promise((resolve) => {
      this.#all = resolve;
    });
    if (runs === 0) this.#all();
  }

  /** Run `run`'s last step has returned. */
  runDone(run) {
    if (this.#finished.has(run)) {
      this.fail(new Error(`${this.#label}: run ${run} finished twice (a step was delivered again)`));
      return;
    }
    this.#finished.add(run);
    this.#waiters.get(run)?.();
    this.#waiters.delete(run);
    if (this.#finished.size === this.runs) this.#all();
  }

  get runsCompleted() {
    return this.#finished.size;
  }

  /** Makes every current and later wait fail with `error` (a handler or the peer failed). */
  fail(error) {
    this.#fail(error instanceof Error ? error : new Error(String(error)));
  }

  /** Resolves once run `run` has finished. */
  run(run) {
    if (this.#finished.has(run)) return this.wait(Promise.resolve(), `run ${run}`);
    return this.wait(new Promise((resolve) => this.#waiters.set(run, resolve)), `run ${run} to finish`);
  }

  /** Resolves once every run has finished. */
  all() {
    return this.wait(this.#allDone, `all ${this.runs} runs to finish`);
  }

  /** Awaits `promise`, failing if the time limit passes or fail() is called first. */
  async wait(promise, what) {
    let timer;
    const expired = new Promise((_, reject) => {
      const left = Math.max(0, this.#deadline - performance.now());
      timer = setTimeout(
        () =>
          reject(
            new Error(
              `${this.#label}: gave up waiting for ${what} (time limit; ${this.#finished.size}/${this.runs} runs and ${this.steps} steps done)`,
            ),
          ),
        left,
      );
    });
    try {
      return await Promise.race([promise, expired, this.#failed]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Polls `check` every `everyMs` until it answers true, within the time limit. */
  async until(check, what, everyMs = 5) {
    let gaveUp = false;
    const polling = (async () => {
      while (!gaveUp && !(await check())) await new Promise((r) => setTimeout(r, everyMs));
    })();
    try {
      return await this.wait(polling, what);
    } finally {
      // A failed wait must not leave the loop querying a database that is about to be dropped.
      gaveUp = true;
    }
  }
}

/** Runs `fn` (a shutdown step) but gives up after `ms`, so cleanup cannot hang the benchmark. */
/**
 * Starts the runs of a chained-job peer and waits for them: in throughput mode every first step
 * at once, `chunk` per `addMany(runs)` call; in latency mode one run at a time with `addOne(run)`.
 */
export async function driveChains(completions, { mode, runs, chunk, addMany, addOne }) {
  if (mode === 'throughput') {
    const chunks = [];
    for (let first = 0; first < runs; first += chunk) {
      const batch = [];
      for (let r = first; r < Math.min(runs, first + chunk); r++) batch.push(r);
      chunks.push(addMany(batch));
    }
    await completions.wait(Promise.all(chunks), 'the first steps to be added');
    await completions.all();
  } else {
    for (let r = 0; r < runs; r++) {
      await completions.wait(addOne(r), `run ${r} to be added`);
      await completions.run(r);
    }
  }
}

export async function bounded(fn, ms, what) {
  let timer;
  try {
    return await Promise.race([
      fn(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Checks the options every system is given. */
export function checkOptions(options, label) {
  const { mode, runs, workers, steps } = options;
  if (mode !== 'throughput' && mode !== 'latency') throw new Error(`${label}: unknown mode ${mode}`);
  for (const [name, value] of Object.entries({ runs, workers, steps })) {
    if (!Number.isInteger(value) || value < 1)
      throw new Error(`${label}: ${name} must be a positive integer, got ${value}`);
  }
  return { mode, runs, workers, steps };
}
