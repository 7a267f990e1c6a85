import type { ErrorBody, ValidationError } from '@baton/protocol';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

import { BatonError } from '../errors.js';
import { externalStorageAdvice } from '../payloads/payload-service.js';
import { RETRY_AFTER_SECONDS, storeFault } from '../store/store-faults.js';

/** Fastify's own error codes that are the caller's fault, mapped to Baton's codes. */
const FASTIFY_CLIENT_ERRORS: Record<string, { code: ErrorBody['code']; status: number }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'BAD_REQUEST', status: 400 },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'BAD_REQUEST', status: 400 },
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'PAYLOAD_TOO_LARGE', status: 413 },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'UNSUPPORTED_MEDIA_TYPE', status: 415 },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'BAD_REQUEST', status: 400 },
};

function validationPath(part: string | undefined, instancePath: string, missing?: unknown): string {
  const segments = instancePath
    .split('/')
    .filter(Boolean)
    .map((s) => (/^\d+$/.test(s) ? `[${s}]` : `.${s}`))
    .join('');
  const base = `${part ?? 'body'}${segments}`;
  return typeof missing === 'string' ? `${base}.${missing}` : base;
}

/** Most problems one answer lists: a body of 100,000 bad items is refused with a short answer. */
const MAX_LISTED_ERRORS = 100;

function send(reply: FastifyReply, body: ErrorBody): FastifyReply {
  const errors = body.validationErrors;
  if (errors && errors.length > MAX_LISTED_ERRORS) {
    body = {
      ...body,
      message: `${body.message} (${errors.length} problems; the first ${MAX_LISTED_ERRORS} are listed)`,
      validationErrors: errors.slice(0, MAX_LISTED_ERRORS),
    };
  }
  return reply.code(body.status).type('application/json; charset=utf-8').send(body);
}

/**
 * Errors the router raises before any route runs (a path that is no valid percent-encoding, a
 * parameter over the router's length): the same error body as every other 4xx.
 */
export function answerFrameworkError(error: FastifyError, _req: FastifyRequest, reply: FastifyReply): void {
  const status =
    typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500
      ? error.statusCode
      : 400;
  void send(reply, { status, code: 'BAD_REQUEST', message: error.message, retryable: false });
}

/** What to do instead of sending a body over the limit, for the routes that carry payloads. */
function largeBodyAdvice(url: string): string {
  if (url.startsWith('/api/tasks')) return externalStorageAdvice('output');
  if (url.startsWith('/api/workflow')) return externalStorageAdvice('input');
  return '';
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof BatonError) {
      const body: ErrorBody = {
        status: error.status,
        code: error.code,
        message: error.message,
        retryable: error.retryable,
      };
      if (error.validationErrors) body.validationErrors = error.validationErrors;
      return send(reply, body);
    }
    const fault = storeFault(error);
    if (fault !== undefined) {
      // Nothing was acknowledged (a COMMIT without an answer included): the caller tries again.
      request.log.warn({ reason: fault }, 'database unavailable');
      void reply.header('retry-after', String(RETRY_AFTER_SECONDS));
      return send(reply, {
        status: 503,
        code: 'NOT_READY',
        message: `The database is unavailable; try again later (${fault})`,
        retryable: true,
      });
    }
    if (error.validation) {
      const validationErrors: ValidationError[] = error.validation.map((v) => {
        const missing = (v.params as { missingProperty?: unknown } | undefined)?.missingProperty;
        return {
          path: validationPath(error.validationContext, v.instancePath, missing),
          message: v.message ?? 'is invalid',
        };
      });
      const first = validationErrors[0];
      return send(reply, {
        status: 400,
        code: 'VALIDATION',
        message: first ? `${first.path} ${first.message}` : 'Validation failed',
        retryable: false,
        validationErrors,
      });
    }
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      const limit = request.routeOptions.bodyLimit ?? request.server.initialConfig.bodyLimit ?? 0;
      return send(reply, {
        status: 413,
        code: 'PAYLOAD_TOO_LARGE',
        message:
          `Request body is larger than the limit of ${limit} bytes (BATON_MAX_BODY_BYTES). ` +
          `Keep large inputs and outputs out of requests: put them in external payload storage and pass a reference. ${largeBodyAdvice(request.url)}`.trimEnd(),
        retryable: false,
      });
    }
    const known = error.code ? FASTIFY_CLIENT_ERRORS[error.code] : undefined;
    if (known) {
      return send(reply, {
        status: known.status,
        code: known.code,
        message:
          error.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
            ? `${error.message}. ${largeBodyAdvice(request.url)}`
            : error.message,
        retryable: false,
      });
    }
    if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
      return send(reply, {
        status: error.statusCode,
        code: 'BAD_REQUEST',
        message: error.message,
        retryable: false,
      });
    }
    request.log.error({ err: error }, 'request failed');
    return send(reply, {
      status: 500,
      code: 'INTERNAL',
      message: 'Internal error; the request may be retried',
      retryable: true,
    });
  });

  app.setNotFoundHandler((request, reply) =>
    send(reply, {
      status: 404,
      code: 'NOT_FOUND',
      message: `No route for ${request.method} ${request.url.split('?')[0] ?? ''}`,
      retryable: false,
    }),
  );
}
