import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** How a call ended, as counted: the task's outcome, or what the executor did with it. */
export type CallResultLabel =
  | 'completed'
  | 'failed'
  | 'failed_terminal'
  /** A long operation's check that asked to be checked again later. */
  | 'in_progress'
  /** The task ended elsewhere (terminate, timeout, skip) while the call ran: it was aborted. */
  | 'canceled'
  /** The node stopped mid-call: the task was given back to its queue. */
  | 'released';

/** Metrics of the calls the engine makes itself, on the server's registry (`GET /metrics`). */
export class CallMetrics {
  private readonly calls: Counter<'kind' | 'outcome'>;
  private readonly duration: Histogram<'kind' | 'outcome'>;
  private readonly inFlight: Gauge<'kind'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.calls = new Counter({
      name: 'baton_system_calls_total',
      help: 'Calls made by the engine (HTTP, CALL_TOOL, …), by kind and outcome',
      labelNames: ['kind', 'outcome'],
      registers,
    });
    this.duration = new Histogram({
      name: 'baton_system_call_duration_seconds',
      help: 'Duration of calls made by the engine, by kind and outcome',
      labelNames: ['kind', 'outcome'],
      buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers,
    });
    this.inFlight = new Gauge({
      name: 'baton_system_calls_in_flight',
      help: 'Calls made by the engine running now on this node, by kind',
      labelNames: ['kind'],
      registers,
    });
  }

  started(kind: string): void {
    this.inFlight.inc({ kind });
  }

  ended(kind: string, outcome: CallResultLabel, seconds: number): void {
    this.inFlight.dec({ kind });
    this.calls.inc({ kind, outcome });
    this.duration.observe({ kind, outcome }, seconds);
  }
}
