import type { FastifyInstance } from 'fastify';

import type { InstructionInput, InstructionService } from './instruction-service.js';

// No dots: `${instructions.NAME}` reads NAME as one path segment.
const name = { type: 'string', minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9_-]+$' } as const;
const version = { type: 'integer', minimum: 1, maximum: 2_147_483_647 } as const;

export interface InstructionRouteDeps {
  instructions: InstructionService;
}

/** `/api/metadata/instructions`: register, read (latest or a version), list, delete a version. */
export function instructionRoutes(app: FastifyInstance, { instructions }: InstructionRouteDeps): void {
  const tags = ['metadata'];
  app.post<{ Body: InstructionInput }>(
    '/api/metadata/instructions',
    {
      schema: {
        tags,
        summary:
          'Register an instruction text (no version: the next one; an existing version: 409); answers it',
        body: {
          type: 'object',
          required: ['name', 'text'],
          additionalProperties: false,
          properties: {
            name,
            version,
            text: { type: 'string', maxLength: 1_000_000 },
            contentType: { type: 'string', minLength: 1, maxLength: 255 },
          },
        },
      },
    },
    (req) => instructions.register(req.body),
  );
  app.get(
    '/api/metadata/instructions',
    { schema: { tags, summary: 'Every version of every instruction text' } },
    () => instructions.list(),
  );
  app.get<{ Params: { name: string }; Querystring: { version?: number } }>(
    '/api/metadata/instructions/:name',
    {
      schema: {
        tags,
        summary: 'The latest version of an instruction text (or version=)',
        params: { type: 'object', required: ['name'], properties: { name } },
        querystring: { type: 'object', properties: { version } },
      },
    },
    (req) => instructions.get(req.params.name, req.query.version),
  );
  const both = { type: 'object', required: ['name', 'version'], properties: { name, version } } as const;
  app.get<{ Params: { name: string; version: number } }>(
    '/api/metadata/instructions/:name/:version',
    { schema: { tags, summary: 'One version of an instruction text', params: both } },
    (req) => instructions.get(req.params.name, req.params.version),
  );
  app.delete<{ Params: { name: string; version: number } }>(
    '/api/metadata/instructions/:name/:version',
    { schema: { tags, summary: 'Delete one version of an instruction text', params: both } },
    async (req, reply) => {
      await instructions.remove(req.params.name, req.params.version);
      return reply.code(200).send();
    },
  );
}
