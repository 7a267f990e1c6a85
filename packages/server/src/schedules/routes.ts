import type { WorkflowSchedule } from '@baton/protocol';
import type { FastifyInstance } from 'fastify';

import { actorOf } from '../auth/authorship.js';

import type { ScheduleService } from './schedule-service.js';

// The end of year 9999 UTC: later dates are outside what cron libraries compute.
const EPOCH_MAX = 253_402_300_799_999;

export const workflowScheduleSchema = {
  type: 'object',
  required: ['name', 'cronExpression', 'startWorkflowRequest'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255 },
    cronExpression: { type: 'string', minLength: 1, maxLength: 255 },
    zoneId: { type: 'string', minLength: 1, maxLength: 64 },
    startWorkflowRequest: {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 255 },
        version: { type: 'integer', minimum: 1, maximum: 2_147_483_647 },
        input: { type: 'object', additionalProperties: true },
        correlationId: { type: 'string', maxLength: 255 },
        taskToDomain: { type: 'object', additionalProperties: { type: 'string', maxLength: 255 } },
        priority: { type: 'integer', minimum: 0, maximum: 99 },
      },
    },
    paused: { type: 'boolean' },
    pausedReason: { type: 'string', maxLength: 1024 },
    scheduleStartTime: { type: 'integer', minimum: 0, maximum: EPOCH_MAX },
    scheduleEndTime: { type: 'integer', minimum: 0, maximum: EPOCH_MAX },
    runCatchupScheduleInstances: { type: 'boolean' },
    description: { type: 'string', maxLength: 4096 },
    createdBy: { type: 'string', maxLength: 255 },
    updatedBy: { type: 'string', maxLength: 255 },
  },
} as const;

const nameParams = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string', minLength: 1, maxLength: 255 } },
} as const;

const pageQuery = {
  start: { type: 'integer', minimum: 0, maximum: 1_000_000, default: 0 },
  size: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
} as const;

const nextFewQuery = {
  type: 'object',
  required: ['cronExpression'],
  properties: {
    cronExpression: { type: 'string', minLength: 1, maxLength: 255 },
    zoneId: { type: 'string', minLength: 1, maxLength: 64, default: 'UTC' },
    scheduleStartTime: { type: 'integer', minimum: 0, maximum: EPOCH_MAX },
    scheduleEndTime: { type: 'integer', minimum: 0, maximum: EPOCH_MAX },
    limit: { type: 'integer', minimum: 1, maximum: 1000, default: 5 },
  },
} as const;

export interface ScheduleRouteDeps {
  schedules: ScheduleService;
}

type NameReq = { Params: { name: string } };
type PauseReq = { Params: { name: string }; Querystring: { reason?: string } };
type NextFewReq = {
  Querystring: {
    cronExpression: string;
    zoneId: string;
    scheduleStartTime?: number;
    scheduleEndTime?: number;
    limit: number;
  };
};

/**
 * Schedules under the contract's `/api/schedule` and under Conductor's `/api/scheduler/...`
 * (the paths its SDK's SchedulerClient calls; pause and resume answer GET as Orkes and PUT as
 * Conductor OSS).
 */
export function scheduleRoutes(app: FastifyInstance, { schedules }: ScheduleRouteDeps): void {
  const tags = ['schedule'];
  for (const base of ['/api/schedule', '/api/scheduler/schedules']) {
    app.post<{ Body: WorkflowSchedule }>(
      base,
      { schema: { tags, summary: 'Create or update a schedule; answers it', body: workflowScheduleSchema } },
      (req) => schedules.save(req.body, false, actorOf(req)),
    );
    app.put<{ Body: WorkflowSchedule }>(
      base,
      { schema: { tags, summary: 'Update a schedule (404 when missing)', body: workflowScheduleSchema } },
      (req) => schedules.save(req.body, true, actorOf(req)),
    );
    app.get<{ Querystring: { workflowName?: string } }>(
      base,
      {
        schema: {
          tags,
          summary: 'Every schedule (of one workflow with workflowName=)',
          querystring: { type: 'object', properties: { workflowName: { type: 'string', maxLength: 255 } } },
        },
      },
      (req) => schedules.list(req.query.workflowName),
    );
    app.get<NameReq>(
      base + '/:name',
      { schema: { tags, summary: 'One schedule', params: nameParams } },
      (req) => schedules.get(req.params.name),
    );
    app.delete<NameReq>(
      base + '/:name',
      { schema: { tags, summary: 'Remove a schedule', params: nameParams } },
      async (req, reply) => {
        await schedules.remove(req.params.name);
        return reply.code(200).send();
      },
    );
    const pause = {
      schema: {
        tags,
        summary: 'Pause a schedule (no slot fires until resumed)',
        params: nameParams,
        querystring: { type: 'object', properties: { reason: { type: 'string', maxLength: 1024 } } },
      },
    } as const;
    const resume = {
      schema: {
        tags,
        summary: 'Resume a schedule from now (slots of the pause are not owed)',
        params: nameParams,
      },
    } as const;
    for (const method of ['GET', 'PUT'] as const) {
      app.route<PauseReq>({
        method,
        url: base + '/:name/pause',
        ...pause,
        handler: async (req, reply) => {
          await schedules.pause(req.params.name, req.query.reason);
          return reply.code(200).send();
        },
      });
      app.route<NameReq>({
        method,
        url: base + '/:name/resume',
        ...resume,
        handler: async (req, reply) => {
          await schedules.resume(req.params.name);
          return reply.code(200).send();
        },
      });
    }
    app.get<NameReq & { Querystring: { start: number; size: number } }>(
      base + '/:name/executions',
      {
        schema: {
          tags,
          summary:
            "A schedule's slots, newest first: {totalHits, results: [{executionId, scheduleName, scheduledTime, executionTime, workflowId, state, reason}]}",
          params: nameParams,
          querystring: { type: 'object', properties: pageQuery },
        },
      },
      (req) => schedules.executions(req.params.name, req.query.start, req.query.size),
    );
  }

  for (const path of ['/api/schedule/search', '/api/scheduler/schedules/search']) {
    app.get<{
      Querystring: {
        workflowName?: string;
        scheduleName?: string;
        paused?: boolean;
        freeText?: string;
        start: number;
        size: number;
      };
    }>(
      path,
      {
        schema: {
          tags,
          summary: 'Schedules by workflow, name, paused or free text: {totalHits, results}',
          querystring: {
            type: 'object',
            properties: {
              workflowName: { type: 'string', maxLength: 255 },
              scheduleName: { type: 'string', maxLength: 255 },
              paused: { type: 'boolean' },
              freeText: { type: 'string', maxLength: 1024 },
              sort: { type: 'string', maxLength: 255 },
              ...pageQuery,
            },
          },
        },
      },
      (req) => schedules.search(req.query),
    );
  }

  for (const path of ['/api/schedule/nextFewSchedules', '/api/scheduler/nextFewSchedules']) {
    app.get<NextFewReq>(
      path,
      {
        schema: {
          tags,
          summary: 'The next slots of a cron expression (epoch ms)',
          querystring: nextFewQuery,
        },
      },
      (req) =>
        schedules.nextFew(
          req.query.cronExpression,
          req.query.zoneId,
          req.query.limit,
          req.query.scheduleStartTime,
          req.query.scheduleEndTime,
        ),
    );
  }

  for (const path of ['/api/schedule/executions', '/api/scheduler/search/executions']) {
    app.get<{ Querystring: { scheduleName?: string; start: number; size: number } }>(
      path,
      {
        schema: {
          tags,
          summary: 'Slots of every schedule (or scheduleName=), newest first: {totalHits, results}',
          querystring: {
            type: 'object',
            properties: {
              scheduleName: { type: 'string', maxLength: 255 },
              query: { type: 'string', maxLength: 1024 },
              freeText: { type: 'string', maxLength: 1024 },
              sort: { type: 'string', maxLength: 255 },
              ...pageQuery,
            },
          },
        },
      },
      (req) => schedules.executions(req.query.scheduleName, req.query.start, req.query.size),
    );
  }

  // Conductor's scheduler admin: pause or resume firing on this node (for debugging), and requeue.
  for (const action of ['pause', 'resume'] as const) {
    app.get(
      `/api/scheduler/admin/${action}`,
      {
        schema: {
          tags,
          summary:
            action === 'pause'
              ? 'Stop firing schedules on this node (for debugging; other nodes keep firing them, each schedule keeps its own paused flag); answers {status: "done"}'
              : 'Fire schedules on this node again; answers {status: "done"}',
        },
      },
      () => {
        schedules.pauseThisNode(action === 'pause');
        return { status: 'done' };
      },
    );
  }
  app.get(
    '/api/scheduler/admin/requeue',
    {
      schema: {
        tags,
        summary:
          'Conductor\'s requeue of pending execution records, in its shape ({"recordIds.size", sampleIds}): always none, because Baton writes a slot\'s execution record in the transaction that starts its run',
      },
    },
    () => ({ 'recordIds.size': 0, sampleIds: [] }),
  );

  for (const action of ['pause', 'resume'] as const) {
    app.put<{ Body: string[] }>(
      `/api/scheduler/bulk/${action}`,
      {
        schema: {
          tags,
          summary: `${action === 'pause' ? 'Pause' : 'Resume'} several schedules`,
          body: { type: 'array', maxItems: 1000, items: { type: 'string', minLength: 1, maxLength: 255 } },
        },
      },
      async (req) => {
        const bulkErrorResults: Record<string, string> = {};
        const bulkSuccessfulResults: string[] = [];
        for (const name of req.body) {
          try {
            if (action === 'pause') await schedules.pause(name);
            else await schedules.resume(name);
            bulkSuccessfulResults.push(name);
          } catch (raw) {
            bulkErrorResults[name] = raw instanceof Error ? raw.message : String(raw);
          }
        }
        return { bulkSuccessfulResults, bulkErrorResults };
      },
    );
  }
}
