import type { FastifyInstance, FastifyRequest } from 'fastify';

import type { AuthOptions } from '../config/auth-options.js';
import { fail } from '../errors.js';
import type { Applications, Tag } from './applications.js';
import type { BatonTokens } from './baton-tokens.js';
import { TOKEN_EXCHANGE_LIMIT } from './http-guards.js';
import { WORKER_ROLE_PREFIX } from './identity.js';

/**
 * Orkes's application and access-key API (the paths and shapes Conductor's SDKs use), and
 * `POST /api/token`, which trades an access key for a short-lived Baton-signed token.
 */
const tags = ['applications'];
const idParam = (name: string) =>
  ({
    type: 'object',
    required: [name],
    properties: { [name]: { type: 'string', minLength: 1, maxLength: 128 } },
  }) as const;
const appKeyParams = {
  type: 'object',
  required: ['applicationId', 'keyId'],
  properties: {
    applicationId: { type: 'string', minLength: 1, maxLength: 128 },
    keyId: { type: 'string', minLength: 1, maxLength: 128 },
  },
} as const;
const nameBody = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string', minLength: 1, maxLength: 200 } },
} as const;
const tagList = {
  type: 'array',
  maxItems: 100,
  items: {
    type: 'object',
    properties: {
      key: { type: 'string', maxLength: 200 },
      value: { type: 'string', maxLength: 1000 },
      type: { type: 'string', maxLength: 100 },
    },
  },
} as const;

function actorOf(req: FastifyRequest): string {
  return req.identity?.subject ?? 'anonymous';
}

/** Orkes's application roles that have a Baton equivalent (so Orkes tooling can grant them). */
function orkesAlias(role: string, options: AuthOptions): string | undefined {
  const aliases: Record<string, string> = {
    ADMIN: options.roles.admin,
    METADATA_MANAGER: options.roles.metadata,
    WORKFLOW_MANAGER: options.roles.workflow,
    UNRESTRICTED_WORKER: `${WORKER_ROLE_PREFIX}*`,
  };
  return aliases[role];
}

/** A role Baton understands: a group role (any of the configured names), `worker:<type>`, or an Orkes alias. */
function roleOf(role: string, options: AuthOptions): string {
  const alias = orkesAlias(role, options);
  if (alias !== undefined) return alias;
  const groupRoles = Object.values(options.roles);
  const isWorker = role.startsWith(WORKER_ROLE_PREFIX) && role.length > WORKER_ROLE_PREFIX.length;
  if (!groupRoles.includes(role) && !isWorker) {
    throw fail('ROLE_UNKNOWN', { role, roles: groupRoles.join(', ') }, [
      { path: 'params.role', message: 'is not a role', invalidValue: role },
    ]);
  }
  return role;
}

export function applicationRoutes(
  app: FastifyInstance,
  applications: Applications,
  tokens: BatonTokens,
  options: AuthOptions,
): void {
  app.post<{ Body: { keyId: string; keySecret: string; expiration?: number } }>(
    '/api/token',
    {
      config: { rateLimit: TOKEN_EXCHANGE_LIMIT },
      schema: {
        tags,
        summary:
          'Trade an access key for a short-lived token (send it as X-Authorization or Authorization: Bearer). 404 when auth is off',
        body: {
          type: 'object',
          required: ['keyId', 'keySecret'],
          properties: {
            keyId: { type: 'string', minLength: 1, maxLength: 128 },
            keySecret: { type: 'string', minLength: 1, maxLength: 256 },
            expiration: { type: 'integer', minimum: 1, maximum: 86_400 },
          },
        },
      },
    },
    async (req) => {
      // Conductor's SDKs read a 404 here as "no authentication on this server" (Conductor OSS).
      if (options.mode === 'off') throw fail('AUTH_OFF');
      const applicationId = await applications.authenticate(req.body.keyId, req.body.keySecret);
      return { token: await tokens.sign(applicationId, req.body.keyId, req.body.expiration) };
    },
  );

  app.get('/api/applications', { schema: { tags, summary: 'All applications' } }, () => applications.list());

  app.post<{ Body: { name: string } }>(
    '/api/applications',
    { schema: { tags, summary: 'Create an application (no roles, no keys yet)', body: nameBody } },
    (req) => applications.create(req.body.name, actorOf(req)),
  );

  app.get<{ Params: { id: string } }>(
    '/api/applications/:id',
    { schema: { tags, summary: 'Read an application', params: idParam('id') } },
    (req) => applications.get(req.params.id),
  );

  app.put<{ Params: { id: string }; Body: { name: string } }>(
    '/api/applications/:id',
    { schema: { tags, summary: 'Rename an application', params: idParam('id'), body: nameBody } },
    (req) => applications.rename(req.params.id, req.body.name, actorOf(req)),
  );

  app.delete<{ Params: { id: string } }>(
    '/api/applications/:id',
    { schema: { tags, summary: 'Remove an application and its access keys', params: idParam('id') } },
    async (req, reply) => {
      await applications.remove(req.params.id);
      return reply.code(200).send();
    },
  );

  app.get<{ Params: { id: string } }>(
    '/api/applications/:id/accessKeys',
    {
      schema: {
        tags,
        summary: "An application's access keys: {id, createdAt, status}",
        params: idParam('id'),
      },
    },
    (req) => applications.keys(req.params.id),
  );

  app.post<{ Params: { id: string } }>(
    '/api/applications/:id/accessKeys',
    {
      schema: {
        tags,
        summary: 'Create an access key: answers {id, secret}; the secret is shown this once only',
        params: idParam('id'),
      },
    },
    (req) => applications.createKey(req.params.id),
  );

  app.delete<{ Params: { applicationId: string; keyId: string } }>(
    '/api/applications/:applicationId/accessKeys/:keyId',
    {
      schema: {
        tags,
        summary: 'Delete an access key (its tokens stop working within seconds)',
        params: appKeyParams,
      },
    },
    async (req, reply) => {
      await applications.deleteKey(req.params.applicationId, req.params.keyId);
      return reply.code(200).send();
    },
  );

  app.post<{ Params: { applicationId: string; keyId: string } }>(
    '/api/applications/:applicationId/accessKeys/:keyId/status',
    { schema: { tags, summary: 'Toggle an access key ACTIVE / INACTIVE', params: appKeyParams } },
    (req) => applications.toggleKey(req.params.applicationId, req.params.keyId),
  );

  const roleParams = {
    type: 'object',
    required: ['applicationId', 'role'],
    properties: {
      applicationId: { type: 'string', minLength: 1, maxLength: 128 },
      role: { type: 'string', minLength: 1, maxLength: 300 },
    },
  } as const;
  app.post<{ Params: { applicationId: string; role: string } }>(
    '/api/applications/:applicationId/roles/:role',
    {
      schema: {
        tags,
        summary:
          'Give an application a role: a group role, worker:<taskType>, or ADMIN / METADATA_MANAGER / WORKFLOW_MANAGER / UNRESTRICTED_WORKER',
        params: roleParams,
      },
    },
    (req) => {
      return applications.addRole(req.params.applicationId, roleOf(req.params.role, options), actorOf(req));
    },
  );

  app.delete<{ Params: { applicationId: string; role: string } }>(
    '/api/applications/:applicationId/roles/:role',
    { schema: { tags, summary: 'Take a role from an application', params: roleParams } },
    (req) =>
      applications.removeRole(
        req.params.applicationId,
        orkesAlias(req.params.role, options) ?? req.params.role,
        actorOf(req),
      ),
  );

  app.get<{ Params: { accessKeyId: string } }>(
    '/api/applications/key/:accessKeyId',
    { schema: { tags, summary: 'The application an access key belongs to', params: idParam('accessKeyId') } },
    (req) => applications.applicationOfKey(req.params.accessKeyId),
  );

  app.get<{ Params: { id: string } }>(
    '/api/applications/:id/tags',
    { schema: { tags, summary: "An application's tags", params: idParam('id') } },
    async (req) => (await applications.get(req.params.id)).tags,
  );

  app.put<{ Params: { id: string }; Body: Tag[] }>(
    '/api/applications/:id/tags',
    { schema: { tags, summary: 'Add tags to an application', params: idParam('id'), body: tagList } },
    async (req, reply) => {
      await applications.putTags(req.params.id, req.body, actorOf(req));
      return reply.code(200).send();
    },
  );

  app.delete<{ Params: { id: string }; Body: Tag[] }>(
    '/api/applications/:id/tags',
    { schema: { tags, summary: 'Remove tags from an application', params: idParam('id'), body: tagList } },
    async (req, reply) => {
      await applications.deleteTags(req.params.id, req.body, actorOf(req));
      return reply.code(200).send();
    },
  );
}
