import type { JsonObject } from '@baton/protocol';
import type { FastifyInstance } from 'fastify';

import { fail } from '../../errors.js';
import type { RegistryService } from './registry-service.js';
import { serviceBodySchema, type ServiceBody, type ServiceMethod } from './service-record.js';

const tags = ['registry'];
const name = { type: 'string', minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_.-]+$' } as const;
const nameParams = { type: 'object', required: ['name'], properties: { name } } as const;
const registryParams = {
  type: 'object',
  required: ['registryName'],
  properties: { registryName: name },
} as const;
const methodBody = {
  type: 'object',
  properties: {
    id: { type: 'integer', minimum: 0, maximum: 2_147_483_647 },
    operationName: { type: 'string', minLength: 1, maxLength: 1024 },
    methodName: { type: 'string', minLength: 1, maxLength: 1024 },
    methodType: { type: 'string', maxLength: 64 },
    inputType: { type: 'string', maxLength: 1024 },
    outputType: { type: 'string', maxLength: 1024 },
    description: { type: 'string', maxLength: 4096 },
    requestParams: { type: 'array', maxItems: 1000 },
    exampleInput: {},
    inputSchema: { type: 'object' },
  },
} as const;
const circuitStatus = {
  type: 'object',
  properties: {
    service: { type: 'string' },
    previousState: { type: 'string' },
    currentState: { type: 'string' },
    transitionTimestamp: { type: 'integer' },
    message: { type: 'string' },
  },
} as const;

/** Orkes's `/api/registry/service` paths and shapes (its SDK's ServiceRegistryClient works against them). */
export function registryRoutes(app: FastifyInstance, registry: RegistryService): void {
  app.get('/api/registry/service', { schema: { tags, summary: 'Every registered service' } }, () =>
    registry.list(),
  );

  app.post<{ Body: ServiceBody }>(
    '/api/registry/service',
    {
      schema: {
        tags,
        summary:
          'Add or replace a service (MCP, connector with its OpenAPI 3 document, document intelligence)',
        body: serviceBodySchema,
      },
    },
    (req) => registry.put(req.body),
  );

  app.get<{ Params: { name: string } }>(
    '/api/registry/service/:name',
    { schema: { tags, summary: 'One service', params: nameParams } },
    (req) => registry.get(req.params.name),
  );

  app.delete<{ Params: { name: string } }>(
    '/api/registry/service/:name',
    { schema: { tags, summary: 'Remove a service', params: nameParams } },
    async (req, reply) => {
      await registry.delete(req.params.name);
      return reply.code(200).send();
    },
  );

  app.post<{ Params: { registryName: string }; Body: JsonObject }>(
    '/api/registry/service/:registryName/methods',
    {
      schema: {
        tags,
        summary: 'Add or replace a method (an MCP tool)',
        params: registryParams,
        body: methodBody,
      },
    },
    (req) => {
      const body = req.body;
      const operationName = (body.operationName ?? body.methodName) as string | undefined;
      if (operationName === undefined) {
        throw fail('SERVICE_FIELD_REQUIRED', { field: 'body.operationName' }, [
          { path: 'body.operationName', message: 'operationName (or methodName) is required' },
        ]);
      }
      const method: ServiceMethod = {
        ...(body as unknown as ServiceMethod),
        operationName,
        methodName: (body.methodName as string | undefined) ?? operationName,
        methodType: (body.methodType as string | undefined) ?? 'TOOL',
      };
      return registry.putMethod(req.params.registryName, method);
    },
  );

  app.delete<{ Params: { registryName: string }; Querystring: { method?: string; methodName?: string } }>(
    '/api/registry/service/:registryName/methods',
    {
      schema: {
        tags,
        summary: 'Remove a method',
        params: registryParams,
        querystring: {
          type: 'object',
          properties: {
            serviceName: { type: 'string', maxLength: 128 },
            method: { type: 'string', minLength: 1, maxLength: 1024 },
            methodName: { type: 'string', minLength: 1, maxLength: 1024 },
            methodType: { type: 'string', maxLength: 64 },
          },
        },
      },
    },
    async (req, reply) => {
      const method = req.query.method ?? req.query.methodName;
      if (method === undefined) {
        throw fail('SERVICE_FIELD_REQUIRED', { field: 'querystring.method' }, [
          { path: 'querystring.method', message: 'is required' },
        ]);
      }
      await registry.deleteMethod(req.params.registryName, method);
      return reply.code(200).send();
    },
  );

  app.get<{ Params: { name: string }; Querystring: { create?: boolean } }>(
    '/api/registry/service/:name/discover',
    {
      schema: {
        tags,
        summary: 'The methods of a service (a connector’s operations; an MCP service’s registered tools)',
        params: nameParams,
        querystring: { type: 'object', properties: { create: { type: 'boolean' } } },
      },
    },
    (req) => registry.discover(req.params.name, req.query.create === true),
  );

  for (const state of ['open', 'close'] as const) {
    app.post<{ Params: { name: string } }>(
      `/api/registry/service/:name/circuit-breaker/${state}`,
      {
        schema: {
          tags,
          summary: state === 'open' ? 'Open the circuit: calls fail fast until closed' : 'Close the circuit',
          params: nameParams,
          response: { 200: circuitStatus },
        },
      },
      (req) => registry.setCircuit(req.params.name, state === 'open' ? 'OPEN' : 'CLOSED'),
    );
  }
  app.get<{ Params: { name: string } }>(
    '/api/registry/service/:name/circuit-breaker/status',
    {
      schema: {
        tags,
        summary: 'State of the circuit breaker',
        params: nameParams,
        response: { 200: circuitStatus },
      },
    },
    (req) => registry.circuitStatus(req.params.name),
  );
}
