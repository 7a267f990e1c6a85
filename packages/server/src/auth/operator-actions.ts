import type { JsonObject } from '@baton/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';

import type { Clock } from '../clock.js';
import type { RunAction, Store } from '../store/store.js';

/**
 * Operator actions on a run, recorded with who and when once they succeed, and shown on
 * `GET /api/workflow/{id}` as `operatorActions`. Routes are listed here (method and pattern),
 * not changed, so the run-control routes stay unaware of identities.
 */
interface ActionRoute {
  /** The action's name, or where to read it (`param:operation` for the bulk routes). */
  action: string;
  /** `params`: one run named by :workflowId; `bulk`: the ids the answer lists as successful. */
  runs: 'params' | 'bulk';
}

export const OPERATOR_ACTION_ROUTES: Readonly<Record<string, ActionRoute>> = {
  'PUT /api/workflow/:workflowId/pause': { action: 'pause', runs: 'params' },
  'PUT /api/workflow/:workflowId/resume': { action: 'resume', runs: 'params' },
  'DELETE /api/workflow/:workflowId': { action: 'terminate', runs: 'params' },
  'POST /api/workflow/:workflowId/terminate': { action: 'terminate', runs: 'params' },
  'POST /api/workflow/:workflowId/retry': { action: 'retry', runs: 'params' },
  'POST /api/workflow/:workflowId/restart': { action: 'restart', runs: 'params' },
  'POST /api/workflow/:workflowId/rerun': { action: 'rerun', runs: 'params' },
  'PUT /api/workflow/:workflowId/skiptask/:ref': { action: 'skip', runs: 'params' },
  'POST /api/workflow/:workflowId/signal': { action: 'signal', runs: 'params' },
  'POST /api/tasks/:workflowId/:status/signal': { action: 'signal', runs: 'params' },
  'PUT /api/workflow/bulk/:operation': { action: 'param:operation', runs: 'bulk' },
  'POST /api/workflow/bulk/:operation': { action: 'param:operation', runs: 'bulk' },
};

const RUN_READ_ROUTE = 'GET /api/workflow/:workflowId';

function routeKey(req: FastifyRequest): string {
  return `${req.method} ${req.routeOptions.url ?? ''}`;
}

function detailOf(req: FastifyRequest, payload: unknown): JsonObject | undefined {
  const params = (req.params ?? {}) as Record<string, unknown>;
  const query = (req.query ?? {}) as Record<string, unknown>;
  const detail: JsonObject = {};
  if (typeof query.reason === 'string') detail.reason = query.reason.slice(0, 1000);
  if (typeof params.ref === 'string') detail.taskReferenceName = params.ref;
  if (typeof params.status === 'string') detail.status = params.status;
  // retry, restart and rerun answer the new run's id as text.
  if (typeof payload === 'string' && /^[0-9a-f-]{36}$/i.test(payload)) detail.newWorkflowId = payload;
  return Object.keys(detail).length > 0 ? detail : undefined;
}

function bulkSucceeded(payload: unknown): string[] {
  if (typeof payload !== 'string') return [];
  try {
    const parsed = JSON.parse(payload) as { bulkSuccessfulResults?: unknown };
    return Array.isArray(parsed.bulkSuccessfulResults)
      ? parsed.bulkSuccessfulResults.filter((id): id is string => typeof id === 'string')
      : [];
  } catch {
    return [];
  }
}

export function installOperatorActions(app: FastifyInstance, store: Store, clock: Clock): void {
  // onSend: the action succeeded (2xx) and its answer is known; it is recorded before the
  // answer leaves, so an acknowledged action is always on the run.
  app.addHook('onSend', async (req, reply, payload) => {
    const route = OPERATOR_ACTION_ROUTES[routeKey(req)];
    if (!route || reply.statusCode >= 300) return payload;
    const params = (req.params ?? {}) as Record<string, unknown>;
    const action = route.action.startsWith('param:') ? String(params[route.action.slice(6)]) : route.action;
    const ids =
      route.runs === 'bulk'
        ? bulkSucceeded(payload)
        : typeof params.workflowId === 'string'
          ? [params.workflowId]
          : [];
    if (ids.length === 0) return payload;
    const actor = req.identity?.subject ?? 'anonymous';
    const at = clock.now();
    const detail = route.runs === 'params' ? detailOf(req, payload) : undefined;
    const actions: RunAction[] = ids.map((workflowId) => ({
      workflowId,
      action,
      actor,
      at,
      ...(detail && { detail }),
    }));
    try {
      await store.transaction(async (tx) => {
        for (const a of actions) await tx.appendRunAction(a);
      });
    } catch (err) {
      // The action itself is done and committed: answer it as such, and say loudly what was not kept.
      req.log.error({ err, actions }, 'could not record an operator action');
    }
    return payload;
  });

  app.addHook('preSerialization', async (req, reply, payload) => {
    if (routeKey(req) !== RUN_READ_ROUTE || reply.statusCode !== 200) return payload;
    if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return payload;
    const run = payload as { workflowId?: unknown };
    if (typeof run.workflowId !== 'string') return payload;
    const workflowId = run.workflowId;
    const actions = await store.read((tx) => tx.getRunActions(workflowId));
    if (actions.length === 0) return payload;
    return {
      ...payload,
      operatorActions: actions.map((a) => ({
        action: a.action,
        by: a.actor,
        at: a.at,
        ...(a.detail && { detail: a.detail }),
      })),
    };
  });
}
