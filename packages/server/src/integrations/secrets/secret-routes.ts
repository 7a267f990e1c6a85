import type { FastifyInstance } from 'fastify';

import { fail } from '../../errors.js';

import { SECRET_NAME_PATTERN } from './secret-refs.js';
import type { SecretService } from './secret-service.js';

const tags = ['secrets'];
/** Longest secret value accepted (a certificate or a private key fits). */
export const MAX_SECRET_BYTES = 65_536;

const nameParams = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string', minLength: 1, maxLength: 128, pattern: SECRET_NAME_PATTERN } },
} as const;
const secretInfo = {
  type: 'object',
  properties: { name: { type: 'string' }, createTime: { type: 'integer' }, updateTime: { type: 'integer' } },
} as const;
/** Orkes's SDK sends the value as a JSON string; `text/plain` and `{"value": …}` are accepted too. */
const valueBody = {
  anyOf: [
    { type: 'string', minLength: 1, maxLength: MAX_SECRET_BYTES },
    {
      type: 'object',
      required: ['value'],
      additionalProperties: false,
      properties: { value: { type: 'string', minLength: 1, maxLength: MAX_SECRET_BYTES } },
    },
  ],
} as const;

/**
 * `/api/secrets` (Orkes's paths): values go in and are never answered back. Where Orkes's
 * `GET /api/secrets/{name}` answers the value, Baton answers only its name and times.
 */
export function secretRoutes(app: FastifyInstance, secrets: SecretService): void {
  const names = async (): Promise<string[]> => (await secrets.list()).map((s) => s.name);
  app.get(
    '/api/secrets',
    {
      schema: {
        tags,
        summary: 'Names of the stored secrets (never values)',
        response: { 200: { type: 'array', items: { type: 'string' } } },
      },
    },
    names,
  );
  // Orkes's SDK lists names with a POST.
  app.post(
    '/api/secrets',
    {
      schema: {
        tags,
        summary: 'Names of the stored secrets (Orkes form)',
        response: { 200: { type: 'array', items: { type: 'string' } } },
      },
    },
    names,
  );
  app.get(
    '/api/secrets-v2',
    {
      schema: {
        tags,
        summary: 'Stored secrets with their times (never values)',
        response: {
          200: {
            type: 'array',
            items: {
              ...secretInfo,
              properties: { ...secretInfo.properties, tags: { type: 'array', items: {} } },
            },
          },
        },
      },
    },
    async () => (await secrets.list()).map((s) => ({ ...s, tags: [] })),
  );

  app.put<{ Params: { name: string }; Body: string | { value: string } }>(
    '/api/secrets/:name',
    {
      schema: {
        tags,
        summary: 'Store or replace a secret (sealed with BATON_SECRETS_KEY; 409 when it is unset)',
        params: nameParams,
        body: valueBody,
        response: { 200: secretInfo, 201: secretInfo },
      },
    },
    async (req, reply) => {
      const value = typeof req.body === 'string' ? req.body : req.body.value;
      const { created, info } = await secrets.put(req.params.name, value);
      return reply.code(created ? 201 : 200).send(info);
    },
  );

  app.get<{ Params: { name: string } }>(
    '/api/secrets/:name',
    {
      schema: {
        tags,
        summary: 'A secret’s name and times (its value is never answered)',
        params: nameParams,
        response: { 200: secretInfo },
      },
    },
    (req) => secrets.describe(req.params.name),
  );

  app.get<{ Params: { name: string } }>(
    '/api/secrets/:name/exists',
    {
      schema: {
        tags,
        summary: 'true when the secret exists; 404 when it does not (as Orkes answers)',
        params: nameParams,
        response: { 200: { type: 'boolean' } },
      },
    },
    async (req) => {
      if (!(await secrets.exists(req.params.name))) throw fail('SECRET_NOT_FOUND', { name: req.params.name });
      return true;
    },
  );

  app.delete<{ Params: { name: string } }>(
    '/api/secrets/:name',
    { schema: { tags, summary: 'Remove a secret', params: nameParams } },
    async (req, reply) => {
      await secrets.delete(req.params.name);
      return reply.code(200).send();
    },
  );
}
