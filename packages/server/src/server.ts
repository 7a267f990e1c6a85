import { hostname } from 'node:os';

import type { FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';

import { type Clock, systemClock } from './clock.js';
import type { RawEnv } from './config/env.js';
import { isLoopback } from './config/auth-options.js';
import type { Options } from './config/options.js';
import type { EngineSettings, ScriptRunner } from './engine/index.js';
import { type AuthRoom, createAuth, prepareAuth } from './auth/install.js';
import { buildApp } from './http/app.js';
import type { CallHandlerRegistry } from './integrations/call-handler.js';
import { createCallHandlers, startSystemTaskExecutor } from './integrations/index.js';
import { createIntegrations } from './integrations/integrations.js';
import { Metrics } from './metrics.js';
import { ParkedPolls } from './handout/parked-polls.js';
import { WakeBus } from './queue/wake-bus.js';
import {
  DecisionApplier,
  type DecisionApplierHooks,
  type ExecutionObserver,
} from './decisions/decision-applier.js';
import { DecisionMetrics } from './decisions/decision-metrics.js';
import { RepairService } from './operations/repair-service.js';
import { MetadataService } from './operations/metadata-service.js';
import { RunControlService } from './operations/run-control-service.js';
import { SyncExecuteService } from './operations/sync-execute.js';
import { TestRunService } from './operations/test-run-service.js';
import { PollRecorder } from './handout/poll-recorder.js';
import { TaskService } from './operations/task-service.js';
import { TimerLoop } from './loops/timer-loop.js';
import { WorkflowService } from './operations/workflow-service.js';
import { WorkerLiveness } from './handout/worker-liveness.js';
import { asyncScripts, type AsyncScriptRunner } from './scripting/async-scripts.js';
import { createScriptRunner, type SandboxedScripts } from './scripting/script-runner.js';
import { openStore } from './open-store.js';
import { PostgresStore } from './store-postgres/postgres-store.js';
import { SqliteStore } from './store-sqlite/sqlite-store.js';
import { createEvents } from './events/events-module.js';
import { lifecycleOutbox } from './events/lifecycle-events.js';
import { InstructionService } from './instructions/instruction-service.js';
import { SCHEDULE_TIMER_KIND, ScheduleService } from './schedules/schedule-service.js';
import { blobHealthCheck } from './blobs/blob-health.js';
import type { BlobStore } from './blobs/blob-store.js';
import { openBlobStore } from './blobs/open-blob-store.js';
import { PayloadService } from './payloads/payload-service.js';
import { TaskSearch } from './search/task-search.js';
import { ArchiveReader } from './archive/archive-reader.js';
import { Archiver, type ArchiveFaults } from './archive/archiver.js';
import { DEFINITION_PRUNER_DEFAULTS, RunDefinitionPruner } from './archive/definition-pruner.js';
import { ScheduleExecutionRetention } from './schedules/execution-retention.js';
import { RunRemoval } from './archive/run-removal.js';
import { SignalResponder } from './operations/signal-response.js';
import { loadSigningKey, PayloadUrlSigner } from './payloads/signed-url.js';
import type { Store } from './store/store.js';
import { startWait, whileDatabaseAway } from './store/database-wait.js';
import { createTracing, type Tracing } from './tracing/tracing.js';
import { RunTracer } from './tracing/run-tracer.js';
import { traceSlowTransactions } from './tracing/slow-transactions.js';
import { traceLogFields } from './tracing/log-fields.js';
import { dataDirSecretsKey } from './config/data-dir-secrets-key.js';

export type ServerState = 'CREATED' | 'STARTING' | 'RUNNING' | 'STOPPING' | 'STOPPED';

export interface BatonServer {
  readonly app: FastifyInstance;
  readonly store: Store;
  readonly logger: Logger;
  /** Prometheus metrics (`GET /metrics`); the timer loop reports ALERT_ONLY timeouts here. */
  readonly metrics: Metrics;
  /** Authentication: applications, token checks, the route table (`src/auth`). */
  readonly auth: AuthRoom;
  /** The durable-timer loop; `timers.fireDue(now)` fires what is due (tests on a manual clock). */
  readonly timers: TimerLoop;
  /** Blob storage: external payloads and the archive. */
  readonly blobs: BlobStore;
  /** Moves ended runs to blob storage; its loop runs when BATON_ARCHIVE_AFTER is set. */
  readonly archiver: Archiver;
  /** Deletes the stored run definitions no run refers to any more (archive/definition-pruner.ts). */
  readonly definitionPruner: RunDefinitionPruner;
  state(): ServerState;
  /** Listens on options.host:options.port; answers the bound address. */
  listen(): Promise<string>;
  /** Stops taking requests, lets in-flight ones finish, closes the store. Idempotent. */
  stop(): Promise<void>;
}

export interface CreateServerInput {
  options: Options;
  rawEnv?: RawEnv;
  clock?: Clock;
  /** Use this store instead of opening one from the options (tests). */
  store?: Store;
  logger?: Logger;
  /** Use this blob store instead of opening one from the options (tests). */
  blobs?: BlobStore;
  /** Run the archiver loop when BATON_ARCHIVE_AFTER is set (default true); tests call `archiver.runOnce()`. */
  archiveLoop?: boolean;
  /**
   * Run the background housekeeping passes (default true): the pruner of unused run definitions
   * (tests call `definitionPruner.runOnce()`) and the schedule history's retention.
   */
  housekeeping?: boolean;
  /** Failure points of the archiver (tests of its crash safety). */
  archiveFaults?: ArchiveFaults;
  /** Use this script runner instead of loading the sandbox (tests). */
  scripts?: ScriptRunner;
  /** Run the timer loop in the background (default true); tests on a manual clock fire timers themselves. */
  timerLoop?: boolean;
  /** Run this node's system-task executor (HTTP, CALL_TOOL, … calls; default true). */
  systemTaskExecutor?: boolean;
  /** Use these call handlers instead of the built-in ones (tests). */
  callHandlers?: CallHandlerRegistry;
  /** This node's number among the processes of a BATON_PROCESSES group (in logs and /health). */
  processIndex?: number;
  /** Use this tracing instead of one made from the options (tests). */
  tracing?: Tracing;
}

/** The composition root: wires store, engine, services and HTTP. Migrates the store on start. */
export async function createServer(input: CreateServerInput): Promise<BatonServer> {
  const { options } = input;
  const clock = input.clock ?? systemClock;
  // Off unless an OTLP endpoint is configured; when off nothing below makes a span or an id.
  const tracing = input.tracing ?? (await createTracing(options.tracing));
  const logger =
    input.logger ??
    pino({
      level: options.logLevel,
      ...(input.processIndex !== undefined && {
        base: { pid: process.pid, hostname: hostname(), process: input.processIndex },
      }),
      // Log lines written inside a traced request or call carry its trace_id and span_id.
      ...(tracing.enabled && { mixin: () => traceLogFields(tracing) }),
      redact: {
        paths: ['*.databaseUrl', '*.amqpUrl', '*.natsUrl', '*.password', 'req.headers.authorization'],
        censor: '***',
      },
    });
  const store =
    input.store ??
    (await openStore({
      dataDir: options.dataDir,
      poolSize: options.dbPoolSize,
      connectTimeoutMs: options.dbConnectTimeoutMs,
      statementTimeoutMs: options.dbStatementTimeoutMs,
      onError: (err) =>
        logger.warn({ err: { message: err.message } }, 'database connection lost; reconnecting'),
      groupCommit: options.dbGroupCommit,
      sqliteSynchronous: options.sqliteSynchronous,
      ...(options.databaseUrl !== undefined && { databaseUrl: options.databaseUrl }),
    }));
  // A node started during an outage (or whose migration lost its connection) waits for the database.
  const waitForDatabase = startWait(store.dialect, options.dbStartWaitMs, logger);
  await whileDatabaseAway(() => store.migrate(), waitForDatabase);
  // Advisory: a database that cannot say (a blip right after migrating) starts the node all the
  // same. Of a BATON_PROCESSES group the first process says it, so a start logs it once.
  if (input.processIndex === undefined || input.processIndex === 1)
    for (const warning of await store.settingWarnings().catch(() => []))
      logger.warn({ store: store.dialect }, warning);
  if (tracing.enabled) traceSlowTransactions(store, tracing, options.tracing.slowTxMs);

  const wake = new WakeBus();
  const unsubscribe = store.onQueueNotification((names) => {
    if (names.length === 0) wake.wakeAll();
    else wake.wake(names);
  });
  // The script threads load their WebAssembly modules when a script first runs, and end when idle.
  let sandbox: SandboxedScripts | undefined;
  let scripts: AsyncScriptRunner;
  if (input.scripts) scripts = asyncScripts(input.scripts);
  else {
    sandbox = createScriptRunner({
      scriptMemoryMb: options.scriptMemoryMb,
      scriptTimeoutMs: options.scriptTimeoutMs,
      outputMaxBytes: options.payloadInlineMaxBytes,
    });
    scripts = sandbox;
  }
  // A start that fails after the script threads exist must end them, or they keep the process alive.
  // The metrics' event-loop sampling is ended too (it keeps nothing alive, but it runs every 10 ms).
  let sampling: Metrics | undefined;
  try {
    // This node's waiting long polls, which transactions hand the tasks they queue to.
    const parkedPolls = new ParkedPolls();
    const metrics = new Metrics(
      () => store.read((tx) => tx.queueCounts(clock.now())),
      store instanceof PostgresStore
        ? () => store.group?.stats
        : store instanceof SqliteStore
          ? () => store.commitCounts
          : undefined,
      sandbox && (() => sandbox.threads),
      () => parkedPolls.size,
    );
    sampling = metrics;
    const liveness = new WorkerLiveness(store, clock);
    await whileDatabaseAway(() => liveness.refresh(), waitForDatabase);
    const lifecycleObserver = new DecisionMetrics(metrics, liveness, logger);
    const runTracer = tracing.enabled ? new RunTracer(tracing) : undefined;
    const observer: ExecutionObserver = runTracer
      ? {
          decided: (...args) => {
            lifecycleObserver.decided(...args);
            runTracer.decided(...args);
          },
        }
      : lifecycleObserver;
    const engineSettings: EngineSettings = {
      highPriorityThreshold: options.highPriorityThreshold,
      maxForkBranches: options.maxForkBranches,
      queueRunAgeMs: options.queueRunAgeMs,
      maxOutputBytes: options.payloadMaxBytes,
    };
    const hooks: DecisionApplierHooks = {
      ...(runTracer && { tracer: runTracer }),
      onAlert: (alert) => {
        metrics.alertOnlyTimeout(alert.taskType ?? alert.workflowName, alert.kind);
        logger.warn({ alert }, `timeout alert: ${alert.message}`);
      },
      onFault: (workflowId, event, error) => {
        metrics.decisionFault(event);
        logger.error(
          { err: error, workflowId, event },
          'a decision threw: its run was failed with the error',
        );
      },
    };
    const executor = new DecisionApplier(
      clock,
      engineSettings,
      scripts,
      Math.random,
      observer,
      (queueName, now) => liveness.isPolled(queueName, now),
      hooks,
    );
    // Handlers of the calls the engine makes itself (HTTP, CALL_TOOL, …); a kind without one is refused.
    const callHandlers = createCallHandlers(options, input.callHandlers);
    const blobs = input.blobs ?? (await openBlobStore(options.blobs));
    const secretsKey = options.secretsKey ?? dataDirSecretsKey(store.dialect, options.dataDir, logger);
    // Secrets, the service registry and the MCP, connector and document-analysis handlers (not
    // registered when the caller brings its own handlers).
    const integrations = createIntegrations({
      store,
      clock,
      secretsKey,
      fetch: callHandlers.agents.fetch,
      documents: { blobs, maxBytes: options.payloadMaxBytes },
      metricsRegistry: metrics.registry,
      llmRunTokenBudget: options.llmRunTokenBudget,
    });
    if (!input.callHandlers) {
      for (const handler of integrations.handlers) callHandlers.registry.register(handler);
    }
    const metadata = new MetadataService(
      store,
      clock,
      scripts,
      callHandlers.registry,
      // The registry's checks belong to its handlers: a server given other handlers skips them.
      input.callHandlers ? undefined : integrations.referenceChecks,
    );
    const polls = new PollRecorder(store, options.pollDataFlushMs, (err) =>
      logger.warn({ err }, 'could not write poll data; keeping it for the next flush'),
    );
    const archive = new ArchiveReader(store, blobs);
    const archiver = new Archiver(store, blobs, clock, logger, {
      afterMs: options.archiveAfterMs ?? 0,
      intervalMs: options.archiveIntervalMs,
      batch: options.archiveBatch,
      ...(input.archiveFaults !== undefined && { faults: input.archiveFaults }),
      onArchived: () => metrics.housekept('runs_archived', 1),
    });
    const definitionPruner = new RunDefinitionPruner(store, clock, logger, {
      ...DEFINITION_PRUNER_DEFAULTS,
      onDeleted: (n) => metrics.housekept('run_definitions', n),
    });
    const tasks = new TaskService(
      store,
      executor,
      wake,
      clock,
      { metrics, liveness, polls, logger },
      parkedPolls,
    );
    const workflows = new WorkflowService(
      store,
      executor,
      wake,
      clock,
      tasks.withPending,
      archive,
      parkedPolls,
    );
    const runControl = new RunControlService(store, executor, wake, archive, parkedPolls.attempt);
    const testRuns = new TestRunService(store, metadata, clock, engineSettings, scripts);
    const syncExecute = new SyncExecuteService(workflows, wake, clock);
    const payloads = new PayloadService(
      blobs,
      new PayloadUrlSigner(loadSigningKey(options.payloadSigningKey, options.dataDir)),
      {
        inlineMaxBytes: options.payloadInlineMaxBytes,
        maxBytes: options.payloadMaxBytes,
        urlTtlSeconds: options.payloadUrlTtlSeconds,
        publicUrl: options.publicUrl,
      },
      clock,
    );
    const repair = new RepairService(store, executor, wake, clock, parkedPolls.attempt);
    const auth = createAuth(options.auth, store, clock, secretsKey);
    await prepareAuth(auth);
    const timerLoop = new TimerLoop(store, executor, wake, clock, logger, {
      idleMs: options.timerIdleMs,
      parkedAttempt: parkedPolls.attempt,
    });
    hooks.onTimerArmed = (dueAt) => timerLoop.armed(dueAt);
    // Events, schedules and instruction texts (src/events, src/schedules, src/instructions).
    hooks.onDecided = lifecycleOutbox(() => clock.now());
    const events = await createEvents({
      options,
      store,
      executor,
      scripts,
      wake,
      clock,
      logger,
      registry: metrics.registry,
      parkedAttempt: parkedPolls.attempt,
    });
    const schedules = new ScheduleService(store, executor, wake, clock);
    const scheduleRetention = new ScheduleExecutionRetention(store, clock, logger, {
      retentionMs: options.scheduleExecutionRetentionDays * 24 * 3600 * 1000,
      onDeleted: (n) => metrics.housekept('schedule_executions', n),
    });
    timerLoop.handleKind(SCHEDULE_TIMER_KIND, (tx, timer, after) => schedules.fire(tx, timer, after));
    const instructions = new InstructionService(store, clock);
    const app = await buildApp({
      options,
      rawEnv: input.rawEnv ?? {},
      store,
      metadata,
      workflows,
      tasks,
      runControl,
      testRuns,
      syncExecute,
      logger,
      metrics,
      repair,
      healthChecks: {
        // Which process answered: nodes behind one address (BATON_PROCESSES, a balancer) differ here.
        node: () =>
          Promise.resolve({
            pid: process.pid,
            ...(input.processIndex !== undefined && { process: input.processIndex }),
          }),
        timers: () => timerLoop.healthCheck(),
        blobs: blobHealthCheck(blobs),
        ...events.healthChecks,
      },
      integrations,
      eventHandlers: events.handlers,
      schedules,
      instructions,
      payloads,
      taskSearch: new TaskSearch(store),
      removal: new RunRemoval(store, blobs, archiver),
      signals: new SignalResponder(workflows),
      auth,
      tracing,
    });
    if (input.timerLoop !== false) timerLoop.start();
    if (options.archiveAfterMs !== undefined && input.archiveLoop !== false) archiver.start();
    if (input.housekeeping !== false) {
      definitionPruner.start();
      scheduleRetention.start();
    }
    await events.start();
    const systemTasks =
      input.systemTaskExecutor === false
        ? undefined
        : startSystemTaskExecutor({
            options,
            handlers: callHandlers,
            tasks,
            store,
            wake,
            clock,
            logger,
            metrics,
            secrets: {
              values: (names) => integrations.secrets.values(names),
              mask: integrations.secrets.mask,
              maskJson: integrations.secrets.maskJson,
            },
            tracing,
          });

    let state: ServerState = 'RUNNING';
    let stopping: Promise<void> | undefined;
    return {
      app,
      store,
      logger,
      metrics,
      auth,
      timers: timerLoop,
      blobs,
      archiver,
      definitionPruner,
      state: () => state,
      listen: async () => {
        const address = await app.listen({ port: options.port, host: options.host });
        logger.info({ address, store: store.dialect, auth: options.auth.mode }, 'Baton is listening');
        if (options.auth.mode === 'off' && !isLoopback(options.host)) {
          // Only BATON_AUTH=none gets here: say so loudly rather than serve the network silently.
          logger.warn(
            { host: options.host },
            'Baton is reachable from other machines with authentication off (BATON_AUTH=none); a gateway in front must check every caller',
          );
        }
        if (options.auth.mode === 'on' && secretsKey === undefined) {
          logger.warn(
            'BATON_SECRETS_KEY is not set: the token-signing key is stored in clear in the database, so a copy of it can sign tokens; set BATON_SECRETS_KEY to seal it',
          );
        }
        return address;
      },
      stop: () => {
        // Concurrent callers share the same in-flight stop.
        stopping ??= (async () => {
          state = 'STOPPING';
          // Calls in flight get half the grace to finish; the rest go back to their queues.
          const executorStopped = systemTasks?.stop(Math.floor(options.shutdownGraceMs / 2));
          tasks.close();
          await app.close();
          await executorStopped;
          await callHandlers.agents.close();
          await timerLoop.stop();
          await events.stop();
          await archiver.stop();
          await definitionPruner.stop();
          await scheduleRetention.stop();
          await polls.close().catch(() => {});
          await integrations.close().catch(() => {});
          unsubscribe();
          await store.close();
          await tracing.shutdown().catch(() => {});
          await blobs.close();
          await sandbox?.close();
          metrics.close();
          state = 'STOPPED';
        })();
        return stopping;
      },
    };
  } catch (err) {
    sampling?.close();
    await sandbox?.close().catch(() => {});
    unsubscribe();
    // A store this call opened is this call's to close; one passed in stays the caller's.
    if (!input.store) await store.close().catch(() => {});
    throw err;
  }
}
