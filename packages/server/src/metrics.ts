import type { QueueCounts } from '@baton/protocol';
import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';

import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** How often the event loop is sampled: a timer of this period, timed each time it fires. */
const LOOP_SAMPLE_MS = 10;

/** What `baton_housekeeping_removed_total` counts, by its `what` label. */
export type HousekeepingKind = 'runs_archived' | 'run_definitions' | 'schedule_executions';

/**
 * Baton's Prometheus metrics (`GET /metrics`). One instance per server, on its own registry,
 * so two servers in one process (tests) never share counters. Counters are bumped by the
 * services as work happens; queue depths are read from the store when scraped.
 */
export class Metrics {
  readonly registry = new Registry();
  /** How late the event loop's timers ran since the last scrape: how long it was held. */
  private readonly loopDelay: IntervalHistogram = monitorEventLoopDelay({ resolution: LOOP_SAMPLE_MS });
  private readonly runsStarted: Counter<'workflow_name'>;
  private readonly runsEnded: Counter<'workflow_name' | 'status'>;
  private readonly runDuration: Histogram<'workflow_name' | 'status'>;
  private readonly tasksHandedOut: Counter<'task_type'>;
  private readonly tasksToWaitingPolls: Counter<'task_type'>;
  private readonly tasksEnded: Counter<'task_type' | 'status'>;
  private readonly tasksDeferred: Counter<'task_type' | 'reason'>;
  private readonly noWorker: Counter<'task_type'>;
  private readonly alertOnly: Counter<'task_type' | 'timeout_kind'>;
  private readonly decisionFaults: Counter<'event'>;
  private readonly refusedResults: Counter<'task_type' | 'reason'>;
  private readonly scheduleToStart: Histogram<'task_type'>;
  private readonly housekeeping: Counter<'what'>;

  /**
   * `queueCounts` is called on each scrape for the queue depth gauges; `groupCommit` for the
   * group commit counters (PostgreSQL: batches, members, fallbacks, evicted, merged);
   * `scriptThreads` for the script threads gauge; `pollsWaiting` for the waiting long polls gauge.
   */
  constructor(
    queueCounts?: () => Promise<QueueCounts[]>,
    groupCommit?: () => Readonly<Record<string, number>> | undefined,
    scriptThreads?: () => number,
    pollsWaiting?: () => number,
  ) {
    const registers = [this.registry];
    this.runsStarted = new Counter({
      name: 'baton_runs_started_total',
      help: 'Runs started',
      labelNames: ['workflow_name'],
      registers,
    });
    this.housekeeping = new Counter({
      name: 'baton_housekeeping_removed_total',
      help: 'What the background passes moved out of the hot tables or deleted: runs archived, run definitions no run used, schedule executions past their retention',
      labelNames: ['what'],
      registers,
    });
    this.runsEnded = new Counter({
      name: 'baton_runs_ended_total',
      help: 'Runs ended, by final status',
      labelNames: ['workflow_name', 'status'],
      registers,
    });
    this.runDuration = new Histogram({
      name: 'baton_run_duration_seconds',
      help: 'Time from a run start to its end',
      labelNames: ['workflow_name', 'status'],
      buckets: [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600, 14400, 86400],
      registers,
    });
    this.tasksHandedOut = new Counter({
      name: 'baton_tasks_handed_out_total',
      help: 'Worker tasks handed out to a worker by a poll',
      labelNames: ['task_type'],
      registers,
    });
    this.tasksToWaitingPolls = new Counter({
      name: 'baton_tasks_handed_to_waiting_polls_total',
      help: 'Tasks handed to a long poll waiting on this process by the transaction that queued them, without a claim of their own (also counted in baton_tasks_handed_out_total)',
      labelNames: ['task_type'],
      registers,
    });
    this.tasksEnded = new Counter({
      name: 'baton_tasks_completed_total',
      help: 'Tasks that ended, by type and final status',
      labelNames: ['task_type', 'status'],
      registers,
    });
    this.tasksDeferred = new Counter({
      name: 'baton_tasks_limit_deferred_total',
      help: 'Hand-outs refused by concurrentExecLimit or a rate limit (the message waits 60 s)',
      labelNames: ['task_type', 'reason'],
      registers,
    });
    this.noWorker = new Counter({
      name: 'baton_no_worker_warnings_total',
      help: 'Work queued for a task type that no worker had polled in the last 10 s',
      labelNames: ['task_type'],
      registers,
    });
    this.alertOnly = new Counter({
      name: 'baton_alert_only_timeouts_total',
      help: 'Timeouts of tasks whose timeoutPolicy is ALERT_ONLY (the task keeps waiting)',
      labelNames: ['task_type', 'timeout_kind'],
      registers,
    });
    this.decisionFaults = new Counter({
      name: 'baton_decision_faults_total',
      help: 'Decisions that threw (a fault of the engine, or data it cannot handle), whose runs were failed with the error instead; by the event decided, counted once the failure has committed',
      labelNames: ['event'],
      registers,
    });
    this.refusedResults = new Counter({
      name: 'baton_task_results_refused_total',
      help: 'Task results not applied: answered 409 because the attempt had ended (reason ended) or another worker held the task (held), or answered 200 because the holder reported after its response timeout (lapsed)',
      labelNames: ['task_type', 'reason'],
      registers,
    });
    this.scheduleToStart = new Histogram({
      name: 'baton_task_schedule_to_start_seconds',
      help: 'Time from a task attempt being scheduled to its first hand-out (delays included)',
      labelNames: ['task_type'],
      buckets: [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 3600],
      registers,
    });
    if (groupCommit) {
      new Counter({
        name: 'baton_db_group_commit_total',
        help: 'Group commit (SQLite counts batches, members and joined): batches committed together, their members, batches rolled back to run each member alone (fallbacks), times a member left a batch for a lock another member held, to wait in line for it (evicted), times a member left a batch for a run another transaction had locked, for the next batch (elsewhere), deferred writes merged into the statement of another member (merged), transactions done in the joint function of another, such as results of one run decided together (joined)',
        labelNames: ['count'],
        registers,
        collect() {
          const stats = groupCommit();
          this.reset();
          if (stats) for (const [count, value] of Object.entries(stats)) this.inc({ count }, value);
        },
      });
    }
    const loopDelay = this.loopDelay;
    loopDelay.enable();
    new Gauge({
      name: 'baton_event_loop_delay_seconds',
      help: "How long this process's event loop was held since the last scrape, sampled every 10 ms: its p50, p99 and max. A long max is a request or a script that kept every other request waiting; scripts run on their own threads so that none can",
      labelNames: ['stat'],
      registers,
      collect() {
        reportLoopDelay(this, loopDelay);
      },
    });
    if (scriptThreads) {
      new Gauge({
        name: 'baton_script_threads',
        help: 'Script threads loading or loaded: made when a script or jq filter is evaluated, ended after sitting idle',
        registers,
        collect() {
          this.set(scriptThreads());
        },
      });
    }
    if (pollsWaiting) {
      new Gauge({
        name: 'baton_polls_waiting',
        help: 'Long polls waiting on this process for work; a task queued for one of their queues goes to the one waiting longest, in the transaction that queues it',
        registers,
        collect() {
          this.set(pollsWaiting());
        },
      });
    }
    if (queueCounts) {
      new Gauge({
        name: 'baton_queue_messages',
        help: 'Messages per worker queue and state (waiting, scheduled, inFlight, deadLettered)',
        labelNames: ['queue', 'state'],
        registers,
        async collect() {
          this.reset();
          for (const q of await queueCounts()) {
            this.set({ queue: q.queueName, state: 'waiting' }, q.waiting);
            this.set({ queue: q.queueName, state: 'scheduled' }, q.scheduled);
            this.set({ queue: q.queueName, state: 'inFlight' }, q.inFlight);
            this.set({ queue: q.queueName, state: 'deadLettered' }, q.deadLettered);
          }
        },
      });
    }
  }

  runStarted(workflowName: string): void {
    this.runsStarted.inc({ workflow_name: workflowName });
  }

  runEnded(workflowName: string, status: string, durationMs: number): void {
    this.runsEnded.inc({ workflow_name: workflowName, status });
    this.runDuration.observe({ workflow_name: workflowName, status }, Math.max(0, durationMs) / 1000);
  }

  /** `scheduleToStartMs` is given on an attempt's first hand-out only. */
  taskHandedOut(taskType: string, scheduleToStartMs?: number): void {
    this.tasksHandedOut.inc({ task_type: taskType });
    if (scheduleToStartMs !== undefined)
      this.scheduleToStart.observe({ task_type: taskType }, Math.max(0, scheduleToStartMs) / 1000);
  }

  /** A task went to a waiting long poll in the transaction that queued it (after `taskHandedOut`). */
  taskHandedToWaitingPoll(taskType: string): void {
    this.tasksToWaitingPolls.inc({ task_type: taskType });
  }

  taskEnded(taskType: string, status: string): void {
    this.tasksEnded.inc({ task_type: taskType, status });
  }

  taskDeferred(taskType: string, reason: string): void {
    this.tasksDeferred.inc({ task_type: taskType, reason });
  }

  noWorkerWarning(taskType: string): void {
    this.noWorker.inc({ task_type: taskType });
  }

  /** Ends the event-loop sampling (the server calls it when it stops). */
  close(): void {
    this.loopDelay.disable();
  }

  /** A poll, task or total timeout under ALERT_ONLY fired for a task of this type. */
  alertOnlyTimeout(taskType: string, timeoutKind: string): void {
    this.alertOnly.inc({ task_type: taskType, timeout_kind: timeoutKind });
  }

  /** A decision threw and its run was failed with the error (engine/faults.ts). */
  decisionFault(event: string): void {
    this.decisionFaults.inc({ event });
  }

  /**
   * A result refused because its attempt had ended or another worker held the task (`lapsed`:
   * its holder reported after the response timeout ended it, answered 2xx as Conductor does).
   */
  resultRefused(taskType: string, reason: 'ended' | 'held' | 'lapsed'): void {
    this.refusedResults.inc({ task_type: taskType, reason });
  }

  /** `n` more of `what` moved to the archive or deleted by a housekeeping pass. */
  housekept(what: HousekeepingKind, n: number): void {
    if (n > 0) this.housekeeping.inc({ what }, n);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The Prometheus text exposition of every metric. */
  text(): Promise<string> {
    return this.registry.metrics();
  }
}

/**
 * Sets the event-loop delay gauge from what was sampled since the last scrape, then starts over
 * (from the next sample: a hold that begins within 10 ms of a scrape is not seen). Node records
 * each interval between the timer's runs, period included: the period is taken off, so an idle
 * loop reads about 0, not 10 ms.
 */
function reportLoopDelay(gauge: Gauge<'stat'>, sampled: IntervalHistogram): void {
  gauge.reset();
  // Nothing sampled (a scrape right after the last one): no figures rather than zeros.
  if (sampled.count === 0) return;
  const held = (ns: number): number => Math.max(0, ns / 1e6 - LOOP_SAMPLE_MS) / 1000;
  gauge.set({ stat: 'p50' }, held(sampled.percentile(50)));
  gauge.set({ stat: 'p99' }, held(sampled.percentile(99)));
  gauge.set({ stat: 'max' }, held(sampled.max));
  sampled.reset();
}
