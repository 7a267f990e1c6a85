import type { TaskKind } from './kind.js';
import { SYSTEM_CALL_KINDS, systemQueueName, type SystemCallKind } from './system-call-names.js';
import { scheduleWorkerTask } from './worker.js';

/**
 * System calls: tasks the engine runs itself by calling something outside (HTTP, a tool over
 * MCP, a connector operation, a document analysis, a model call). Reaching one only queues it, in the
 * decision's transaction, on an internal queue (`_system-HTTP`, …); the integrations executor
 * on any node claims it with the same claim and lease as a worker task and posts the outcome
 * through the worker result path. So a decision never waits on a call, and a call survives
 * the node that makes it (the lease lapses and the task's retry rules make it again).
 *
 * The engine only knows the kinds by name; what a call does is a handler registered on the
 * server (`integrations/call-handler.ts`). Registration refuses a kind this server has no
 * handler for, and asks the handler to check the node's own fields.
 */

/**
 * The lease of one call when the task definition sets no shorter response timeout: a node that
 * dies mid-call is noticed this long after its last heartbeat (the executor extends the lease
 * while a call runs, so a long call keeps it).
 */
export const SYSTEM_CALL_LEASE_SECONDS = 30;

export function unhandledSystemCallMessage(type: string): string {
  return `task type ${type} is not supported by this server: no executor handles it`;
}

function systemCallKind(type: string, kind: SystemCallKind): TaskKind {
  const queueName = systemQueueName(kind);
  return {
    kind: type,
    retryable: true,
    // Conductor's system task mappers give a task without a task definition no retries (only
    // SIMPLE gets a default definition), so an optional HTTP call with a bad URI fails once.
    retriesNeedTaskDefinition: true,
    waiting: 'queued',
    schedule: (sctx, node, request) =>
      scheduleWorkerTask(sctx, node, request, {
        taskType: type,
        queueName,
        leaseSeconds: (config) => Math.min(config.responseTimeoutSeconds, SYSTEM_CALL_LEASE_SECONDS),
      }),
    check(node, path, cctx) {
      const calls = cctx.systemCalls;
      if (calls === undefined || !calls.supports(kind))
        return [{ path: `${path}.type`, message: unhandledSystemCallMessage(type), invalidValue: type }];
      return calls.check(kind, node, path);
    },
  };
}

/** One engine kind per accepted type name (aliases share their kind's queue and handler). */
export const systemCallKinds: readonly TaskKind[] = (
  Object.entries(SYSTEM_CALL_KINDS) as Array<[SystemCallKind, readonly string[]]>
).flatMap(([kind, types]) => types.map((type) => systemCallKind(type, kind)));
