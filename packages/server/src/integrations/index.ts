import { hostname } from 'node:os';

import type { Logger } from 'pino';

import type { Clock } from '../clock.js';
import type { Options } from '../config/options.js';
import { newId } from '../ids.js';
import type { Metrics } from '../metrics.js';
import type { WakeBus } from '../queue/wake-bus.js';
import type { TaskService } from '../operations/task-service.js';
import type { Store } from '../store/store.js';
import type { Tracing } from '../tracing/tracing.js';
import { CallHandlerRegistry, type SecretResolver } from './call-handler.js';
import { CallMetrics } from './executor/call-metrics.js';
import { SystemTaskExecutor } from './executor/system-task-executor.js';
import { EgressAgents } from './http/egress-agent.js';
import { EgressPolicy } from './http/egress-policy.js';
import { HttpCallHandler } from './http/http-handler.js';

/**
 * The integrations room: the calls the engine makes itself. Built by the composition root in
 * two steps, because registration needs the handlers before the services exist and the
 * executor needs the services: `createCallHandlers` (the registry with every handler this
 * server runs, and the pooled, egress-checked HTTP agents they share), then
 * `startSystemTaskExecutor` once the task service is up.
 */

export interface CallHandlers {
  readonly registry: CallHandlerRegistry;
  readonly agents: EgressAgents;
}

/** The built-in handlers, or `registry` as given (tests bring their own). */
export function createCallHandlers(options: Options, registry?: CallHandlerRegistry): CallHandlers {
  const agents = new EgressAgents(new EgressPolicy({ deny: options.httpDeny, allow: options.httpAllow }));
  if (registry) return { registry, agents };
  const builtIn = new CallHandlerRegistry();
  builtIn.register(new HttpCallHandler({ agents, maxResponseBytes: options.httpMaxResponseBytes }));
  return { registry: builtIn, agents };
}

export interface ExecutorDeps {
  readonly options: Options;
  readonly handlers: CallHandlers;
  readonly tasks: TaskService;
  readonly store: Store;
  readonly wake: WakeBus;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly secrets?: SecretResolver;
  readonly tracing?: Tracing;
}

/** Starts this node's executor; `stop` lets calls finish within `graceMs`, then gives the rest back. */
export function startSystemTaskExecutor(deps: ExecutorDeps): SystemTaskExecutor {
  const executor = new SystemTaskExecutor({
    tasks: deps.tasks,
    store: deps.store,
    wake: deps.wake,
    clock: deps.clock,
    handlers: deps.handlers.registry,
    agents: deps.handlers.agents,
    logger: deps.logger,
    metrics: new CallMetrics(deps.metrics.registry),
    concurrency: deps.options.systemTaskConcurrency,
    nodeId: `baton-executor@${hostname()}:${process.pid}:${newId().slice(0, 8)}`,
    ...(deps.secrets && { secrets: deps.secrets }),
    ...(deps.tracing && { tracing: deps.tracing }),
  });
  executor.start();
  return executor;
}
