import type { FastifyInstance, FastifyRequest } from 'fastify';

import { BatonError } from '../../errors.js';
import {
  PAYLOAD_OPERATIONS,
  PAYLOAD_TYPES,
  type PayloadOperation,
  type PayloadType,
  isPayloadPath,
} from '../../payloads/payload-paths.js';
import { SIGNED_PAYLOAD_ROUTE } from '../../payloads/payload-service.js';
import type { AppDeps } from '../app-deps.js';

const locationQuery = {
  type: 'object',
  properties: {
    path: { type: 'string', maxLength: 512 },
    operation: { type: 'string', enum: PAYLOAD_OPERATIONS, default: 'WRITE' },
    payloadType: { type: 'string', enum: PAYLOAD_TYPES, default: 'TASK_OUTPUT' },
  },
} as const;

const signedQuery = {
  type: 'object',
  required: ['op', 'expires', 'signature'],
  properties: {
    op: { type: 'string', enum: PAYLOAD_OPERATIONS },
    expires: { type: 'integer', minimum: 0, maximum: 99_999_999_999 },
    signature: { type: 'string', maxLength: 128 },
  },
} as const;

interface LocationQuery {
  path?: string;
  operation?: PayloadOperation;
  payloadType?: PayloadType;
}
interface SignedQuery {
  op: PayloadOperation;
  expires: number;
  signature: string;
}

/** The base URL the caller reached this node at (`BATON_PUBLIC_URL` overrides it). */
function requestBase(req: FastifyRequest): string {
  return `${req.protocol}://${req.host}`;
}

function forbidden(message: string): BatonError {
  return new BatonError('FORBIDDEN', message);
}

/**
 * External payloads (DESIGN §9): Conductor's external-storage-location under its task and
 * workflow paths, and the signed upload and download URLs Baton serves for the filesystem store.
 */
export function payloadRoutes(app: FastifyInstance, { payloads, options }: AppDeps): void {
  for (const url of [
    '/api/tasks/external-storage-location',
    '/api/tasks/externalstoragelocation',
    '/api/workflow/external-storage-location',
    '/api/workflow/externalstoragelocation',
  ]) {
    app.get<{ Querystring: LocationQuery }>(
      url,
      {
        schema: {
          tags: url.startsWith('/api/tasks') ? ['tasks'] : ['workflow'],
          summary:
            'A short-lived signed URL to upload (WRITE) or download (READ) a large payload; answers {uri, path}',
          querystring: locationQuery,
        },
      },
      (req) =>
        payloads.location(
          req.query.operation ?? 'WRITE',
          req.query.payloadType ?? 'TASK_OUTPUT',
          req.query.path,
          requestBase(req),
        ),
    );
  }

  // Signed URLs carry their own authority: the signature covers operation, path and expiry.
  app.register((scope, _opts, done) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: options.payloadMaxBytes },
      (_req, body, next) => next(null, body),
    );
    const signed = (
      req: FastifyRequest<{ Params: { '*': string }; Querystring: SignedQuery }>,
      op: PayloadOperation,
    ): string => {
      const blobPath = req.params['*'];
      if (!isPayloadPath(blobPath)) throw forbidden('This path is outside the payload area');
      if (req.query.op !== op) throw forbidden(`This URL is for ${req.query.op}, not ${op}`);
      payloads.checkSigned(op, blobPath, req.query.expires, req.query.signature);
      return blobPath;
    };
    const params = {
      type: 'object',
      required: ['*'],
      properties: { '*': { type: 'string', maxLength: 512 } },
    } as const;
    scope.put<{ Params: { '*': string }; Querystring: SignedQuery; Body: Buffer | undefined }>(
      `${SIGNED_PAYLOAD_ROUTE}*`,
      {
        bodyLimit: options.payloadMaxBytes,
        schema: {
          tags: ['tasks'],
          summary:
            'Upload a payload to a signed URL answered by external-storage-location (filesystem store)',
          params,
          querystring: signedQuery,
        },
      },
      async (req, reply) => {
        const blobPath = signed(req, 'WRITE');
        await payloads.putBytes(blobPath, req.body ?? Buffer.alloc(0));
        return reply.code(200).send();
      },
    );
    scope.get<{ Params: { '*': string }; Querystring: SignedQuery }>(
      `${SIGNED_PAYLOAD_ROUTE}*`,
      {
        schema: {
          tags: ['tasks'],
          summary: 'Download a payload from a signed URL answered by external-storage-location',
          params,
          querystring: signedQuery,
        },
      },
      async (req, reply) => {
        const blobPath = signed(req, 'READ');
        const bytes = await payloads.getBytes(blobPath);
        if (bytes === undefined)
          throw new BatonError('NOT_FOUND', `No payload has been uploaded at ${blobPath}`);
        return reply.code(200).type('application/json').send(bytes);
      },
    );
    done();
  });
}
