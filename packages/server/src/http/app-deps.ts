import type { FastifyBaseLogger } from 'fastify';

import type { RunRemoval } from '../archive/run-removal.js';
import type { AuthRoom } from '../auth/install.js';
import type { RawEnv } from '../config/env.js';
import type { Options } from '../config/options.js';
import type { EventHandlerService } from '../events/handler-service.js';
import type { InstructionService } from '../instructions/instruction-service.js';
import type { IntegrationRouteDeps } from '../integrations/routes.js';
import type { Metrics } from '../metrics.js';
import type { PayloadService } from '../payloads/payload-service.js';
import type { ScheduleService } from '../schedules/schedule-service.js';
import type { TaskSearch } from '../search/task-search.js';
import type { RepairService } from '../operations/repair-service.js';
import type { MetadataService } from '../operations/metadata-service.js';
import type { RunControlService } from '../operations/run-control-service.js';
import type { SignalResponder } from '../operations/signal-response.js';
import type { SyncExecuteService } from '../operations/sync-execute.js';
import type { TaskService } from '../operations/task-service.js';
import type { TestRunService } from '../operations/test-run-service.js';
import type { WorkflowService } from '../operations/workflow-service.js';
import type { Store } from '../store/store.js';
import type { Tracing } from '../tracing/tracing.js';

/**
 * Everything the HTTP app's routes are given, built by the composition root (`server.ts`). A
 * route module takes the part it needs (its own deps type, which this one satisfies).
 */
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
  repair: RepairService;
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
  /** The integrations room's services behind `/api/secrets`, `/api/registry` and `/api/integrations`. */
  integrations: IntegrationRouteDeps['integrations'];
  eventHandlers: EventHandlerService;
  schedules: ScheduleService;
  instructions: InstructionService;
  /** Authentication, roles and HTTP guards (`src/auth`). */
  auth: AuthRoom;
  /** Tracing: a server span per request when on. */
  tracing?: Tracing;
}
