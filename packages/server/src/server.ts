import type { FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';

import { type Clock, systemClock } from './clock.js';
import type { RawEnv } from './config/env.js';
import type { Options } from './config/options.js';
import type { ScriptRunner } from './engine/scripts.js';
import { buildApp } from './http/app.js';
import type { CallHandlerRegistry } from './integrations/call-handler.js';
import { createCallHandlers, startSystemTaskExecutor } from './integrations/index.js';
import { createIntegrations } from './integrations/integrations.js';
import { Metrics } from './metrics.js';
import { WakeBus } from './queue/wake-bus.js';
import { Executor, type ExecutorHooks } from './services/executor.js';
import { LifecycleObserver } from './services/lifecycle-observer.js';
import { LifecycleService } from './services/lifecycle-service.js';
import { MetadataService } from './services/metadata-service.js';
import { RunControlService } from './services/run-control-service.js';
import { SyncExecuteService } from './services/sync-execute.js';
import { TestRunService } from './services/test-run-service.js';
import { PollRecorder } from './services/poll-recorder.js';
import { TaskService } from './services/task-service.js';
import { TimerLoop } from './services/timer-loop.js';
import { WorkflowService } from './services/workflow-service.js';
import { WorkerLiveness } from './services/worker-liveness.js';
import { createScriptRunner, type SandboxedScripts } from './scripting/script-runner.js';
import { openStore } from './store/open-store.js';
import type { Store } from './store/store.js';

export type ServerState = 'CREATED' | 'STARTING' | 'RUNNING' | 'STOPPING' | 'STOPPED';

export interface BatonServer {
  readonly app: FastifyInstance;
  readonly store: Store;
  readonly logger: Logger;
  /** Prometheus metrics (`GET /metrics`); the timer loop reports ALERT_ONLY timeouts here. */
  readonly metrics: Metrics;
  /** The durable-timer loop; `timers.fireDue(now)` fires what is due (tests on a manual clock). */
  readonly timers: TimerLoop;
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
  /** Use this script runner instead of loading the sandbox (tests). */
  scripts?: ScriptRunner;
  /** Run the timer loop in the background (default true); tests on a manual clock fire timers themselves. */
  timerLoop?: boolean;
  /** Run this node's system-task executor (HTTP, CALL_TOOL, … calls; default true). */
  systemTaskExecutor?: boolean;
  /** Use these call handlers instead of the built-in ones (tests). */
  callHandlers?: CallHandlerRegistry;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}

/** The composition root: wires store, engine, services and HTTP. Migrates the store on start. */
export async function createServer(input: CreateServerInput): Promise<BatonServer> {
  const { options } = input;
  const clock = input.clock ?? systemClock;
  const logger =
    input.logger ??
    pino({
      level: options.logLevel,
      redact: { paths: ['*.databaseUrl', '*.password', 'req.headers.authorization'], censor: '***' },
    });
  const store =
    input.store ??
    (await openStore({
      dataDir: options.dataDir,
      poolSize: options.dbPoolSize,
      sqliteSynchronous: options.sqliteSynchronous,
      ...(options.databaseUrl !== undefined && { databaseUrl: options.databaseUrl }),
    }));
  await store.migrate();

  const wake = new WakeBus();
  const unsubscribe = store.onQueueNotification((names) => {
    if (names.length === 0) wake.wakeAll();
    else wake.wake(names);
  });
  // The sandbox's WebAssembly modules load once, here, before the server takes requests.
  let sandbox: SandboxedScripts | undefined;
  let scripts: ScriptRunner;
  if (input.scripts) scripts = input.scripts;
  else {
    sandbox = await createScriptRunner({
      scriptMemoryMb: options.scriptMemoryMb,
      scriptTimeoutMs: options.scriptTimeoutMs,
    });
    scripts = sandbox;
  }
  const metrics = new Metrics(() => store.read((tx) => tx.queueCounts(clock.now())));
  const liveness = new WorkerLiveness(store, clock);
  await liveness.refresh();
  const observer = new LifecycleObserver(metrics, liveness, logger);
  const hooks: ExecutorHooks = {
    onAlert: (alert) => {
      metrics.alertOnlyTimeout(alert.taskType ?? alert.workflowName, alert.kind);
      logger.warn({ alert }, `timeout alert: ${alert.message}`);
    },
  };
  const executor = new Executor(
    clock,
    { highPriorityThreshold: options.highPriorityThreshold },
    scripts,
    Math.random,
    observer,
    (queueName, now) => liveness.isPolled(queueName, now),
    hooks,
  );
  // Handlers of the calls the engine makes itself (HTTP, CALL_TOOL, …); a kind without one is refused.
  const callHandlers = createCallHandlers(options, input.callHandlers);
  // Secrets, the service registry and the MCP, connector and document-analysis handlers (not
  // registered when the caller brings its own handlers).
  const integrations = createIntegrations({
    store,
    clock,
    secretsKey: options.secretsKey,
    fetch: callHandlers.agents.fetch,
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
  const tasks = new TaskService(store, executor, wake, clock, { metrics, liveness, polls });
  const workflows = new WorkflowService(store, executor, wake, clock, tasks.withPending);
  const runControl = new RunControlService(store, executor, wake);
  const testRuns = new TestRunService(
    store,
    metadata,
    clock,
    { highPriorityThreshold: options.highPriorityThreshold },
    scripts,
  );
  const syncExecute = new SyncExecuteService(workflows, wake);
  const lifecycle = new LifecycleService(store, executor, wake, clock);
  const timerLoop = new TimerLoop(store, executor, wake, clock, logger, { idleMs: options.timerIdleMs });
  hooks.onTimerArmed = (dueAt) => timerLoop.armed(dueAt);
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
    lifecycle,
    healthChecks: { timers: () => timerLoop.healthCheck() },
    integrationRoutes: integrations.routes,
  });
  if (input.timerLoop !== false) timerLoop.start();
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
            resolve: integrations.secrets.resolveValue,
            mask: integrations.secrets.mask,
            maskJson: integrations.secrets.maskJson,
          },
        });

  let state: ServerState = 'RUNNING';
  let stopping: Promise<void> | undefined;
  return {
    app,
    store,
    logger,
    metrics,
    timers: timerLoop,
    state: () => state,
    listen: async () => {
      const address = await app.listen({ port: options.port, host: options.host });
      logger.info({ address, store: store.dialect }, 'Baton is listening');
      if (!isLoopback(options.host)) {
        // Authentication is not built yet: say so loudly rather than serve the network silently.
        logger.warn(
          { host: options.host },
          'Baton is reachable from other machines and has no authentication yet; put it behind a gateway that checks callers',
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
        await polls.close().catch(() => {});
        await integrations.close().catch(() => {});
        unsubscribe();
        await store.close();
        await sandbox?.close();
        state = 'STOPPED';
      })();
      return stopping;
    },
  };
}
