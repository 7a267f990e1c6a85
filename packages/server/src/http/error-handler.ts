import type { ErrorBody, ValidationError } from '@baton/protocol';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

import { BatonError, fail } from '../errors.js';
import { externalStorageAdvice } from '../payloads/payload-service.js';
import { RETRY_AFTER_SECONDS, storeFault } from '../store/store-faults.js';
import { copyWith } from '../copy-with.js';

/** Fastify's own error codes that are the caller's fault, mapped to Baton's registered codes. */
const FASTIFY_CLIENT_ERRORS: Record<
  string,
  'BODY_NOT_JSON' | 'MEDIA_TYPE_UNSUPPORTED' | 'REQUEST_MALFORMED'
> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'BODY_NOT_JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'BODY_NOT_JSON',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'MEDIA_TYPE_UNSUPPORTED',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'REQUEST_MALFORMED',
};

/** The error body of a registered error (`status` overrides the registry's for framework 4xx). */
export function errorBody(error: BatonError, status = error.status): ErrorBody {
  const body: ErrorBody = {
    status,
    code: error.code,
    errorCode: error.errorCode,
    message: error.message,
    retryable: error.retryable,
  };
  if (error.validationErrors) body.validationErrors = error.validationErrors;
  return body;
}

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
    body = copyWith(body, {
      message: `${body.message} (${errors.length} problems; the first ${MAX_LISTED_ERRORS} are listed)`,
      validationErrors: errors.slice(0, MAX_LISTED_ERRORS),
    });
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
  void send(reply, errorBody(fail('REQUEST_MALFORMED', { detail: error.message }), status));
}

/** What to do instead of sending a body over the limit, for the routes that carry payloads. */
function largeBodyAdvice(url: string): string {
  if (url.startsWith('/api/tasks')) return externalStorageAdvice('output');
  if (url.startsWith('/api/workflow')) return externalStorageAdvice('input');
  return '';
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof BatonError) return send(reply, errorBody(error));
    const fault = storeFault(error);
    if (fault !== undefined) {
      // Nothing was acknowledged (a COMMIT without an answer included): the caller tries again.
      request.log.warn({ reason: fault }, 'database unavailable');
      void reply.header('retry-after', String(RETRY_AFTER_SECONDS));
      return send(reply, errorBody(fail('DATABASE_UNAVAILABLE', { reason: fault })));
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
      const detail = first ? `${first.path} ${first.message}` : 'Validation failed';
      return send(reply, errorBody(fail('REQUEST_INVALID', { detail }, validationErrors)));
    }
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      const limit = request.routeOptions.bodyLimit ?? request.server.initialConfig.bodyLimit ?? 0;
      const detail =
        `Request body is larger than the limit of ${limit} bytes (BATON_MAX_BODY_BYTES). ` +
        `Keep large inputs and outputs out of requests: put them in external payload storage and pass a reference. ${largeBodyAdvice(request.url)}`.trimEnd();
      return send(reply, errorBody(fail('BODY_TOO_LARGE', { detail })));
    }
    const known = error.code ? FASTIFY_CLIENT_ERRORS[error.code] : undefined;
    if (known) return send(reply, errorBody(fail(known, { detail: error.message })));
    if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
      return send(reply, errorBody(fail('REQUEST_MALFORMED', { detail: error.message }), error.statusCode));
    }
    request.log.error({ err: error }, 'request failed');
    return send(reply, errorBody(fail('INTERNAL_ERROR')));
  });

  app.setNotFoundHandler((request, reply) =>
    send(
      reply,
      errorBody(fail('ROUTE_NOT_FOUND', { method: request.method, path: request.url.split('?')[0] ?? '' })),
    ),
  );
}
