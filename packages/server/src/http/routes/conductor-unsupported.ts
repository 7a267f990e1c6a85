import type { FastifyInstance, HTTPMethods } from 'fastify';

import { fail } from '../../errors.js';

/**
 * Conductor endpoints Baton does not serve whose paths would otherwise reach another Baton route
 * (a literal segment where Baton has a parameter): `DELETE /api/metadata/workflow/{name}/tags`
 * would be read as deleting version "tags" and answer that route's validation error. Each
 * answers 404 naming the feature and what to use instead. These are not Baton's API, so the
 * OpenAPI document does not show them.
 */
const UNSUPPORTED: ReadonlyArray<{ methods: HTTPMethods[]; url: string; feature: string }> = [
  {
    methods: ['GET', 'POST', 'PUT', 'DELETE'],
    url: '/api/metadata/workflow/:name/tags',
    feature: 'tags on workflow definitions are not supported',
  },
  {
    methods: ['GET', 'POST', 'PUT', 'DELETE'],
    url: '/api/metadata/task/:taskName/tags',
    feature: 'tags on task definitions are not supported',
  },
  {
    methods: ['GET'],
    url: '/api/metadata/workflow/names',
    feature: 'the list of definition names is not served: GET /api/metadata/workflow lists every definition',
  },
  {
    methods: ['GET'],
    url: '/api/metadata/workflow/names-and-versions',
    feature: 'names and versions are not served: GET /api/metadata/workflow lists every definition',
  },
  {
    methods: ['GET'],
    url: '/api/metadata/workflow/latest-versions',
    feature:
      'latest versions are not served: GET /api/metadata/workflow lists every definition, GET /api/metadata/workflow/{name} reads the latest',
  },
  {
    methods: ['GET'],
    url: '/api/event/message',
    feature: 'browsing event messages is not supported: GET /api/event/executions shows what handlers did',
  },
  {
    methods: ['GET'],
    url: '/api/event/handler',
    feature: 'this listing is not served: GET /api/event lists every event handler',
  },
  {
    methods: ['POST'],
    url: '/api/tasks/queue/requeue/:taskType',
    feature:
      'requeueing pending tasks is not needed: a task and its queue message are written together, so none is lost; POST /api/admin/requeue/{type} reopens dead-lettered tasks',
  },
  {
    methods: ['GET'],
    url: '/api/integrations/provider/:name/integration/all',
    feature:
      "this listing is not served: GET /api/integrations/provider/{name}/integration lists the provider's models",
  },
  {
    methods: ['POST'],
    url: '/api/prompts/test',
    feature:
      'testing a prompt against a model is not supported: run an LLM_TEXT_COMPLETE or LLM_CHAT_COMPLETE task (POST /api/workflow/test with a mock, or a real run)',
  },
  {
    methods: ['POST'],
    url: '/api/workflow/bulk/search',
    feature: 'bulk search is not supported: GET /api/workflow/search',
  },
  {
    methods: ['GET'],
    url: '/api/workflow/search-v2',
    feature: 'search-v2 is not served: GET /api/workflow/search, then GET /api/workflow/{id} for whole runs',
  },
  {
    methods: ['GET'],
    url: '/api/workflow/search-by-tasks',
    feature: 'searching runs by their tasks is not supported: GET /api/tasks/search',
  },
  {
    methods: ['GET'],
    url: '/api/workflow/search-by-tasks-v2',
    feature: 'searching runs by their tasks is not supported: GET /api/tasks/search',
  },
  {
    methods: ['GET'],
    url: '/api/scheduler/schedules/tags',
    feature: 'tags on schedules are not supported: GET /api/scheduler/schedules lists every schedule',
  },
  {
    methods: ['GET'],
    url: '/api/secrets/clearLocalCache',
    feature: 'there is no secret cache to clear: a secret is read from the store when a call uses it',
  },
  {
    methods: ['GET'],
    url: '/api/secrets/clearRedisCache',
    feature: 'there is no secret cache to clear: a secret is read from the store when a call uses it',
  },
];

/** The hidden 404 routes of Conductor endpoints Baton lacks, where another route would answer. */
export function conductorUnsupportedRoutes(app: FastifyInstance): void {
  for (const { methods, url, feature } of UNSUPPORTED) {
    app.route({
      method: methods,
      url,
      schema: { hide: true },
      handler: (req) => {
        throw fail('CONDUCTOR_ENDPOINT_UNSUPPORTED', {
          method: req.method,
          url: url.replace(/:(\w+)/g, '{$1}'),
          feature,
        });
      },
    });
  }
}
