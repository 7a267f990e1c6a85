import type { ManualClock } from '../clock.js';
import { WakeBus } from '../queue/wake-bus.js';
import type { Store } from '../store/store.js';
import type { DecisionApplier } from '../decisions/decision-applier.js';
import { TimerLoop } from './timer-loop.js';

/** A test run's sandbox has no log: a timer that fails to fire stays leased and the run stops there. */
const quiet = { warn: () => undefined, error: () => undefined, info: () => undefined };

/**
 * Virtual time for test runs: jumps the sandbox's clock to its next due timer (a WAIT's
 * `duration`, a task or workflow timeout) and fires every timer due then with a `TimerLoop` over
 * the sandbox store; answers whether anything fired. The store's `nextTimerDueAt` also counts a
 * leased timer's lease end, so a timer that failed to fire is not found due again and the
 * test run stops instead of looping.
 */
export async function fireNextVirtualTimers(
  sandbox: Store,
  executor: DecisionApplier,
  clock: ManualClock,
): Promise<boolean> {
  const due = await sandbox.read((tx) => tx.nextTimerDueAt());
  if (due === undefined) return false;
  if (due > clock.now()) clock.set(due);
  const loop = new TimerLoop(sandbox, executor, new WakeBus(), clock, quiet, { idleMs: 60_000 });
  return (await loop.fireDue(clock.now())) > 0;
}
