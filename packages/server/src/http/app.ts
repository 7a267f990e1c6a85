import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { Ajv, type Options as AjvOptions } from 'ajv';
import ajvFormats from 'ajv-formats';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';

import { type AuthRoom, authRoutes, installAuth } from '../auth/install.js';
import type { Options } from '../config/options.js';
import type { Metrics } from '../metrics.js';
import type { RawEnv } from '../config/env.js';
import type { LifecycleService } from '../services/lifecycle-service.js';
import type { MetadataService } from '../services/metadata-service.js';
import type { RunControlService } from '../services/run-control-service.js';
import type { SyncExecuteService } from '../services/sync-execute.js';
import type { TestRunService } from '../services/test-run-service.js';
import type { TaskService } from '../services/task-service.js';
import type { WorkflowService } from '../services/workflow-service.js';
import type { Store } from '../store/store.js';
import { answerClientError } from './client-errors.js';
import { answerFrameworkError, installErrorHandling } from './error-handler.js';
import { installJsonBodies } from './json-body.js';
import { installRequestTargetGuard } from './request-target.js';
import { installOversizeBodyDrain } from './oversize-body.js';
import { recordRoutes } from './route-table.js';
import { installTextInput } from './text-input.js';
import type { PayloadService } from '../payloads/payload-service.js';
import type { TaskSearch } from '../search/task-search.js';
import type { RunRemoval } from '../archive/run-removal.js';
import type { SignalResponder } from '../services/signal-response.js';
import { adminRoutes } from './routes/admin.js';
import { lifecycleRoutes } from './routes/lifecycle.js';
import { metadataRoutes } from './routes/metadata.js';
import { metricsRoutes } from './routes/metrics.js';
import { payloadRoutes } from './routes/payloads.js';
import { taskSearchRoutes } from './routes/task-search.js';
import { runRemovalRoutes } from './routes/run-removal.js';
import { runStateRoutes } from './routes/run-state.js';
import { runControlRoutes } from './routes/run-control.js';
import { taskRoutes } from './routes/tasks.js';
import { conductorUnsupportedRoutes } from './routes/conductor-unsupported.js';
import { workflowRoutes } from './routes/workflow.js';
import { serveWebUi } from './web-ui.js';
import type { EventHandlerService } from '../events/handler-service.js';
import { eventRoutes } from '../events/routes.js';
import type { InstructionService } from '../instructions/instruction-service.js';
import { instructionRoutes } from '../instructions/routes.js';
import type { ScheduleService } from '../schedules/schedule-service.js';
import { scheduleRoutes } from '../schedules/routes.js';
import { installHttpTracing } from '../tracing/http-tracing.js';
import type { Tracing } from '../tracing/tracing.js';

export interface AppDeps {
  options: Options;
  rawEnv: RawEnv;
  store: Store;
  metadata: MetadataService;
  workflows: WorkflowService;
  tasks: TaskService;
  runControl: RunControlService;
  testRuns: TestRunService;
  syncExecute: SyncExecuteService;
  lifecycle: LifecycleService;
  /** External payloads: signed URLs, uploaded outputs and inputs, the inline limit. */
  payloads: PayloadService;
  taskSearch: TaskSearch;
  /** Conductor's remove: archive now, or delete for good. */
  removal: RunRemoval;
  /** The answer of a synchronous signal. */
  signals: SignalResponder;
  logger: FastifyBaseLogger | false;
  /** Prometheus metrics served at `/metrics`. */
  metrics?: Metrics;
  /**
   * Extra health checks (timer loop age, broker, blob store) added by later components. A check
   * throws when its component is down; what it answers is shown with the component.
   */
  healthChecks?: Record<string, () => Promise<void | Record<string, unknown>>>;
  /** Routes of the integrations room (`/api/secrets`, `/api/registry/service`). */
  integrationRoutes?: (app: FastifyInstance) => void;
  eventHandlers: EventHandlerService;
  schedules: ScheduleService;
  instructions: InstructionService;
  /** Authentication, roles and HTTP guards (`src/auth`). */
  auth: AuthRoom;
  /** Tracing: a server span per request when on. */
  tracing?: Tracing;
}

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
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Baton',
        version: '0.1.0',
        description: 'Workflow orchestration engine with a Conductor-compatible API.',
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs' });
  app.get('/api/openapi.json', { schema: { hide: true } }, () => app.swagger());

  authRoutes(app, deps.auth, { traceUrlTemplate: deps.options.tracing.urlTemplate });
  metadataRoutes(app, deps);
  workflowRoutes(app, deps);
  runControlRoutes(app, deps);
  taskRoutes(app, deps);
  adminRoutes(app, deps);
  metricsRoutes(app, deps);
  lifecycleRoutes(app, deps);
  deps.integrationRoutes?.(app);
  await serveWebUi(app, deps.options.uiDir, deps.logger);
  eventRoutes(app, deps);
  scheduleRoutes(app, deps);
  instructionRoutes(app, deps);
  payloadRoutes(app, deps);
  taskSearchRoutes(app, deps);
  runRemovalRoutes(app, deps);
  runStateRoutes(app, deps);
  conductorUnsupportedRoutes(app);
  return app;
}
