import swagger from '@fastify/swagger';
import { Ajv, type Options as AjvOptions } from 'ajv';
import ajvFormats from 'ajv-formats';
import Fastify, { type FastifyInstance, LogController } from 'fastify';

import { installAuth } from '../auth/install.js';
import type { AppDeps } from './app-deps.js';
import { answerClientError } from './client-errors.js';
import { answerFrameworkError, installErrorHandling } from './error-handler.js';
import { installJsonBodies } from './json-body.js';
import { installRequestTargetGuard } from './request-target.js';
import { installOversizeBodyDrain } from './oversize-body.js';
import { ROUTE_MODULES } from './route-modules.js';
import { recordRoutes, routeModuleScope } from './route-table.js';
import { errorBodySchema } from './schemas.js';
import { installTextInput } from './text-input.js';
import { installHttpTracing } from '../tracing/http-tracing.js';

export type { AppDeps } from './app-deps.js';

const ajvBase: AjvOptions = { allErrors: true, strict: false, useDefaults: true };

/**
 * Builds the HTTP app without listening, so tests drive it with `inject()` and the server
 * module decides where it listens. Bodies are validated strictly (no type coercion: "5" is not
 * an integer); path and query strings are coerced, since they are text by nature.
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const common = {
    bodyLimit: deps.options.maxBodyBytes,
    // Per-request log lines would dominate the hot path; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    forceCloseConnections: true,
    // Path ids up to the longest name (percent-encoded) reach the route's schema, which answers
    // a 400 naming the parameter; router errors (bad percent-encoding) get the error body too.
    routerOptions: { maxParamLength: 4096 },
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    return503OnClosing: true,
  };
  const app: FastifyInstance =
    deps.logger === false
      ? Fastify({ ...common, logger: false })
      : Fastify({ ...common, loggerInstance: deps.logger });

  const bodyAjv = new Ajv({ ...ajvBase, coerceTypes: false });
  const textAjv = new Ajv({ ...ajvBase, coerceTypes: 'array' });
  ajvFormats.default(bodyAjv);
  ajvFormats.default(textAjv);
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object),
  );

  installErrorHandling(app);
  if (deps.tracing?.enabled) installHttpTracing(app, deps.tracing);
  // Bounds every route gets, including routes added later: JSON depth and size, the request
  // target and Host, and a record of the route table (the bad-input sweep compares it with
  // the OpenAPI document).
  installJsonBodies(app);
  installTextInput(app);
  installOversizeBodyDrain(app);
  installRequestTargetGuard(app);
  recordRoutes(app);
  await installAuth(app, deps.auth);

  await app.register(swagger, {
    // Shared schemas appear under their own name (`ErrorBody`), not a numbered one.
    refResolver: {
      buildLocalReference: (json, _base, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Baton',
        version: '0.1.0',
        description: 'Workflow orchestration engine with a Conductor-compatible API.',
      },
    },
  });
  // Shared component of the document: the body every error answer carries.
  app.addSchema(errorBodySchema);
  // Every route, in the order of the one table of route modules (`route-modules.ts`); the
  // route table records which module served each, for the route-group and OpenAPI checks.
  for (const module of ROUTE_MODULES) {
    await routeModuleScope(app, module.name, () => module.register(app, deps));
  }
  return app;
}
