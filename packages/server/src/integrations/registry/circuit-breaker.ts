import type { JsonValue } from '@baton/protocol';

import { CallInputError } from '../call-failure.js';
import type { CallFetch } from '../call-handler.js';
import type { CircuitBreakerState, FieldProblem, ServiceRecord } from './service-record.js';

/**
 * The automatic circuit breaker of a registered service, in Orkes's shape
 * (`circuitBreakerEnabled`, `config.circuitBreakerConfig`, resilience4j's settings with a
 * count-based window). The state every node acts on is the service's record in the store:
 * a node that sees the failure threshold crossed writes OPEN there (one write per transition,
 * never per call), every node's next call reads it, and the wait in the open state is counted
 * from the transition's time, so HALF_OPEN needs no write at all. The window of recent
 * outcomes and the half-open trial calls are counted per node (sharing them would cost a
 * write per call): each node opens the circuit on what its own calls saw, and each node lets
 * through up to `permittedNumberOfCallsInHalfOpenState` trial calls, the first to finish its
 * trial closing or reopening the circuit for all.
 *
 * A circuit an operator opened stays open until an operator closes it.
 */

export type CircuitState = 'OPEN' | 'CLOSED' | 'HALF_OPEN';

/** `config.circuitBreakerConfig`, read with resilience4j's defaults; durations in seconds. */
export interface BreakerSettings {
  /** Percent of failed calls in the window at which the circuit opens. */
  failureRateThreshold: number;
  /** Percent of slow calls in the window at which the circuit opens. */
  slowCallRateThreshold: number;
  slowCallDurationMs: number;
  /** The window: this many most recent calls (per node). */
  slidingWindowSize: number;
  /** No verdict before the window holds this many calls. */
  minimumNumberOfCalls: number;
  waitInOpenMs: number;
  permittedInHalfOpen: number;
}

const DEFAULTS = {
  failureRateThreshold: 50,
  slowCallRateThreshold: 100,
  slowCallDurationThreshold: 60,
  slidingWindowSize: 100,
  minimumNumberOfCalls: 100,
  waitDurationInOpenState: 60,
  permittedNumberOfCallsInHalfOpenState: 10,
} as const;

/** The bounds of each setting Baton applies (the window is held in memory). */
const BOUNDS: Record<string, { min: number; max: number; integer: boolean }> = {
  failureRateThreshold: { min: 1, max: 100, integer: false },
  slowCallRateThreshold: { min: 1, max: 100, integer: false },
  slowCallDurationThreshold: { min: 0.001, max: 86_400, integer: false },
  slidingWindowSize: { min: 1, max: 10_000, integer: true },
  minimumNumberOfCalls: { min: 1, max: 10_000, integer: true },
  waitDurationInOpenState: { min: 1, max: 86_400, integer: false },
  permittedNumberOfCallsInHalfOpenState: { min: 1, max: 1_000, integer: true },
  // Accepted so Orkes's bodies register unchanged; see `breakerSettings`.
  maxWaitDurationInHalfOpenState: { min: 0, max: 86_400, integer: false },
};

const isObject = (v: unknown): v is Record<string, JsonValue> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** Registration checks of `config.circuitBreakerConfig` (paths as the body names them). */
export function checkBreakerConfig(config: unknown): FieldProblem[] {
  if (config === undefined) return [];
  if (!isObject(config)) return [];
  const raw = config.circuitBreakerConfig;
  const at = 'body.config.circuitBreakerConfig';
  if (raw === undefined || raw === null) return [];
  if (!isObject(raw)) return [{ path: at, message: 'must be an object' }];
  const problems: FieldProblem[] = [];
  for (const [field, value] of Object.entries(raw)) {
    if (field === 'automaticTransitionFromOpenToHalfOpenEnabled') {
      if (typeof value !== 'boolean') problems.push({ path: `${at}.${field}`, message: 'must be a boolean' });
      continue;
    }
    const bound = BOUNDS[field];
    if (!bound) {
      problems.push({
        path: `${at}.${field}`,
        message: `unknown setting (known: ${Object.keys(BOUNDS).join(', ')})`,
      });
      continue;
    }
    if (
      typeof value !== 'number' ||
      !Number.isFinite(value) ||
      value < bound.min ||
      value > bound.max ||
      (bound.integer && !Number.isInteger(value))
    ) {
      problems.push({
        path: `${at}.${field}`,
        message: `must be ${bound.integer ? 'an integer' : 'a number'} from ${bound.min} to ${bound.max}`,
      });
    }
  }
  return problems;
}

/**
 * The automatic breaker's settings, or undefined when it is not enabled. `minimumNumberOfCalls`
 * is capped at the window size (a larger one could never be reached).
 * `maxWaitDurationInHalfOpenState` is accepted but not applied (a half-open circuit waits for
 * its trial calls), and `automaticTransitionFromOpenToHalfOpenEnabled` changes nothing: the
 * half-open state is computed from the time, so it begins when the wait ends either way.
 */
export function breakerSettings(record: ServiceRecord): BreakerSettings | undefined {
  if (!record.circuitBreakerEnabled) return undefined;
  const raw =
    isObject(record.config) && isObject(record.config.circuitBreakerConfig)
      ? record.config.circuitBreakerConfig
      : {};
  const num = (field: keyof typeof DEFAULTS): number => {
    const v = raw[field];
    return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : DEFAULTS[field];
  };
  const slidingWindowSize = Math.floor(num('slidingWindowSize'));
  return {
    failureRateThreshold: num('failureRateThreshold'),
    slowCallRateThreshold: num('slowCallRateThreshold'),
    slowCallDurationMs: num('slowCallDurationThreshold') * 1000,
    slidingWindowSize,
    minimumNumberOfCalls: Math.min(Math.floor(num('minimumNumberOfCalls')), slidingWindowSize),
    waitInOpenMs: num('waitDurationInOpenState') * 1000,
    permittedInHalfOpen: Math.floor(num('permittedNumberOfCallsInHalfOpenState')),
  };
}

/**
 * The state a stored circuit is in at `now`: a circuit the breaker opened is HALF_OPEN once
 * its wait is over (records from before the automatic breaker have no `openedBy`: an
 * operator opened them).
 */
export function effectiveState(
  stored: CircuitBreakerState,
  settings: BreakerSettings | undefined,
  now: number,
): { state: CircuitState; since: number } {
  if (stored.state === 'CLOSED') return { state: 'CLOSED', since: stored.transitionTimestamp };
  if (stored.openedBy === 'breaker' && settings) {
    const halfOpenAt = stored.transitionTimestamp + settings.waitInOpenMs;
    if (now >= halfOpenAt) return { state: 'HALF_OPEN', since: halfOpenAt };
  }
  return { state: 'OPEN', since: stored.transitionTimestamp };
}

/** What a call's exchange with the service says about the service. */
export type CallVerdict = 'success' | 'failure';

/** A call let through: report what came of it once (or nothing, when the call never got an answer of its own). */
export interface CircuitPermit {
  /** Records the outcome (`undefined`: nothing to count, e.g. the call was cancelled); only the first report counts. */
  end(verdict: CallVerdict | undefined): Promise<void>;
  /**
   * `fetch` that reports its first exchange: no answer (a transport error) or a 5xx/429 answer
   * is a failure, any other answer a success; a cancelled request counts for nothing.
   */
  watch(fetch: CallFetch, signal: AbortSignal): CallFetch;
}

/** Writes a transition unless the stored circuit changed since `from` (another node, an operator). */
export type CircuitTransition = (
  name: string,
  from: CircuitBreakerState,
  to: { state: 'OPEN' | 'CLOSED'; message: string },
  now: number,
) => Promise<void>;

interface Outcome {
  failed: boolean;
  slow: boolean;
}

interface NodeCircuit {
  /** The stored transition this node's counts belong to; a new transition starts them again. */
  epoch: number;
  window: Outcome[];
  trial: { issued: number; outcomes: Outcome[] } | undefined;
}

const NO_COUNT: CircuitPermit = {
  end: () => Promise.resolve(),
  watch: (fetch) => fetch,
};

function rates(outcomes: readonly Outcome[]): {
  failed: number;
  slow: number;
  failRate: number;
  slowRate: number;
} {
  const failed = outcomes.filter((o) => o.failed).length;
  const slow = outcomes.filter((o) => o.slow).length;
  const n = Math.max(1, outcomes.length);
  return { failed, slow, failRate: (failed / n) * 100, slowRate: (slow / n) * 100 };
}

export class CircuitBreakers {
  private readonly circuits = new Map<string, NodeCircuit>();

  constructor(private readonly transition: CircuitTransition) {}

  /**
   * Lets a call to `record`'s service through, or refuses it at once (a retryable failure:
   * the task's retry rules try again later) while the circuit is open, or half-open with this
   * node's trial calls all under way.
   */
  admit(record: ServiceRecord, clock: () => number): CircuitPermit {
    const settings = breakerSettings(record);
    const stored = record.circuitBreaker;
    const { state, since } = effectiveState(stored, settings, clock());
    if (state === 'OPEN') throw new CallInputError(openMessage(record, settings), false);
    if (!settings) return NO_COUNT;
    let circuit = this.circuits.get(record.name);
    if (!circuit || circuit.epoch !== stored.transitionTimestamp) {
      circuit = { epoch: stored.transitionTimestamp, window: [], trial: undefined };
      this.circuits.set(record.name, circuit);
    }
    const node = circuit;
    if (state === 'HALF_OPEN') {
      const trial = (node.trial ??= { issued: 0, outcomes: [] });
      if (trial.issued >= settings.permittedInHalfOpen) {
        throw new CallInputError(
          `the circuit breaker of service '${record.name}' is half-open since ${new Date(since).toISOString()} and its ${settings.permittedInHalfOpen} trial calls are under way`,
          false,
        );
      }
      trial.issued++;
      return this.permit(clock, settings, async (outcome) => {
        if (node.trial !== trial) return;
        if (!outcome) {
          trial.issued--;
          return;
        }
        trial.outcomes.push(outcome);
        if (trial.outcomes.length < settings.permittedInHalfOpen) return;
        node.trial = undefined;
        const r = rates(trial.outcomes);
        const reopen =
          r.failRate >= settings.failureRateThreshold || r.slowRate >= settings.slowCallRateThreshold;
        await this.write(record.name, stored, node, clock(), {
          state: reopen ? 'OPEN' : 'CLOSED',
          message: reopen
            ? `opened again by the breaker: ${describe(r, trial.outcomes.length, settings)} of its trial calls`
            : `closed by the breaker: ${trial.outcomes.length} trial calls, ${r.failed} failed, ${r.slow} slow`,
        });
      });
    }
    return this.permit(clock, settings, async (outcome) => {
      if (!outcome || this.circuits.get(record.name) !== node) return;
      node.window.push(outcome);
      if (node.window.length > settings.slidingWindowSize) node.window.shift();
      if (node.window.length < settings.minimumNumberOfCalls) return;
      const r = rates(node.window);
      if (r.failRate < settings.failureRateThreshold && r.slowRate < settings.slowCallRateThreshold) return;
      await this.write(record.name, stored, node, clock(), {
        state: 'OPEN',
        message: `opened by the breaker: ${describe(r, node.window.length, settings)} of the last calls`,
      });
    });
  }

  private async write(
    name: string,
    from: CircuitBreakerState,
    node: NodeCircuit,
    now: number,
    to: { state: 'OPEN' | 'CLOSED'; message: string },
  ): Promise<void> {
    // Counted again from the transition, on this node and (through the record) on every other.
    if (this.circuits.get(name) === node) this.circuits.delete(name);
    await this.transition(name, from, to, now).catch(() => undefined);
  }

  private permit(
    clock: () => number,
    settings: BreakerSettings,
    record: (outcome: Outcome | undefined) => Promise<void>,
  ): CircuitPermit {
    const startedAt = clock();
    let ended = false;
    const end = async (verdict: CallVerdict | undefined): Promise<void> => {
      if (ended) return;
      ended = true;
      const outcome =
        verdict === undefined
          ? undefined
          : { failed: verdict === 'failure', slow: clock() - startedAt > settings.slowCallDurationMs };
      await record(outcome);
    };
    return {
      end,
      watch: (fetch, signal) => async (input: Parameters<CallFetch>[0], init?: Parameters<CallFetch>[1]) => {
        let res: Awaited<ReturnType<CallFetch>>;
        try {
          res = await fetch(input, init);
        } catch (err) {
          await end(signal.aborted ? undefined : 'failure');
          throw err;
        }
        await end(res.status >= 500 || res.status === 429 ? 'failure' : 'success');
        return res;
      },
    };
  }
}

function describe(r: ReturnType<typeof rates>, n: number, settings: BreakerSettings): string {
  return r.failRate >= settings.failureRateThreshold
    ? `${r.failed} of ${n} failed (${Math.round(r.failRate)}% ≥ ${settings.failureRateThreshold}%)`
    : `${r.slow} of ${n} slower than ${settings.slowCallDurationMs / 1000} s (${Math.round(r.slowRate)}% ≥ ${settings.slowCallRateThreshold}%)`;
}

/** Why a call to an open circuit fails at once, and what ends it. */
export function openMessage(record: ServiceRecord, settings: BreakerSettings | undefined): string {
  const stored = record.circuitBreaker;
  if (stored.openedBy === 'breaker' && settings) {
    const at = new Date(stored.transitionTimestamp + settings.waitInOpenMs).toISOString();
    return `the circuit breaker of service '${record.name}' is open (${stored.message ?? 'opened by the breaker'}); trial calls from ${at}`;
  }
  return `the circuit breaker of service '${record.name}' is open (POST /api/registry/service/${record.name}/circuit-breaker/close to close it)`;
}
