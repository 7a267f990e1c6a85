import type { FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';

import { type Clock, systemClock } from './clock.js';
import type { RawEnv } from './config/env.js';
import type { Options } from './config/options.js';
import { noScripts, type ScriptRunner } from './engine/scripts.js';
import { buildApp } from './http/app.js';
import { WakeBus } from './queue/wake-bus.js';
import { Executor } from './services/executor.js';
import { MetadataService } from './services/metadata-service.js';
import { TaskService } from './services/task-service.js';
import { WorkflowService } from './services/workflow-service.js';
import { openStore } from './store/open-store.js';
import type { Store } from './store/store.js';

export type ServerState = 'CREATED' | 'STARTING' | 'RUNNING' | 'STOPPING' | 'STOPPED';

export interface BatonServer {
  readonly app: FastifyInstance;
  readonly store: Store;
  readonly logger: Logger;
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
  /** Use this script runner (tests); by default scripts are not available. */
  scripts?: ScriptRunner;
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
  const scripts = input.scripts ?? noScripts;
  const executor = new Executor(clock, { highPriorityThreshold: options.highPriorityThreshold }, scripts);
  const metadata = new MetadataService(store, clock, scripts);
  const workflows = new WorkflowService(store, executor, wake);
  const tasks = new TaskService(store, executor, wake, clock);
  const app = await buildApp({
    options,
    rawEnv: input.rawEnv ?? {},
    store,
    metadata,
    workflows,
    tasks,
    logger,
  });

  let state: ServerState = 'RUNNING';
  let stopping: Promise<void> | undefined;
  return {
    app,
    store,
    logger,
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
        unsubscribe();
        await store.close();
        state = 'STOPPED';
      })();
      return stopping;
    },
  };
}
