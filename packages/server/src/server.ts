import type { FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';

import { type Clock, systemClock } from './clock.js';
import type { RawEnv } from './config/env.js';
import type { Options } from './config/options.js';
import { noScripts } from './engine/scripts.js';
import { buildApp } from './http/app.js';
import { WakeBus } from './queue/wake-bus.js';
import { Executor, type ExecutorHooks } from './services/executor.js';
import { LifecycleService } from './services/lifecycle-service.js';
import { MetadataService } from './services/metadata-service.js';
import { TaskService } from './services/task-service.js';
import { TimerLoop } from './services/timer-loop.js';
import { WorkflowService } from './services/workflow-service.js';
import { openStore } from './store/open-store.js';
import type { Store } from './store/store.js';

export type ServerState = 'CREATED' | 'STARTING' | 'RUNNING' | 'STOPPING' | 'STOPPED';

export interface BatonServer {
  readonly app: FastifyInstance;
  readonly store: Store;
  readonly logger: Logger;
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
  /** Run the timer loop in the background (default true); tests on a manual clock fire timers themselves. */
  timerLoop?: boolean;
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
  // The sandbox comes with the script kinds; until then every script fails with a clear reason.
  const scripts = noScripts;
  const hooks: ExecutorHooks = {
    // The metrics registry counts these once it exists; until then a warning says it.
    onAlert: (alert) => logger.warn({ alert }, `timeout alert: ${alert.message}`),
  };
  const executor = new Executor(
    clock,
    { highPriorityThreshold: options.highPriorityThreshold },
    scripts,
    Math.random,
    hooks,
  );
  const metadata = new MetadataService(store, clock, scripts);
  const workflows = new WorkflowService(store, executor, wake);
  const tasks = new TaskService(store, executor, wake, clock);
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
    lifecycle,
    logger,
    healthChecks: { timers: () => timerLoop.healthCheck() },
  });
  if (input.timerLoop !== false) timerLoop.start();

  let state: ServerState = 'RUNNING';
  let stopping: Promise<void> | undefined;
  return {
    app,
    store,
    logger,
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
        tasks.close();
        await app.close();
        await timerLoop.stop();
        unsubscribe();
        await store.close();
        state = 'STOPPED';
      })();
      return stopping;
    },
  };
}
