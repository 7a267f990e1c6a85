import { authRoutes } from '../auth/install.js';
import { eventRoutes } from '../events/routes.js';
import { instructionRoutes } from '../instructions/routes.js';
import { integrationRoutes } from '../integrations/routes.js';
import { scheduleRoutes } from '../schedules/routes.js';
import { apiDocsRoutes } from './api-docs.js';
import type { RouteModule } from './route-module.js';
import { adminRoutes } from './routes/admin.js';
import { conductorUnsupportedRoutes } from './routes/conductor-unsupported.js';
import { repairRoutes } from './routes/repair.js';
import { metadataRoutes } from './routes/metadata.js';
import { metricsRoutes } from './routes/metrics.js';
import { payloadRoutes } from './routes/payloads.js';
import { runControlRoutes } from './routes/run-control.js';
import { runRemovalRoutes } from './routes/run-removal.js';
import { runStateRoutes } from './routes/run-state.js';
import { taskSearchRoutes } from './routes/task-search.js';
import { taskRoutes } from './routes/tasks.js';
import { workflowRoutes } from './routes/workflow.js';
import { webUiRoutes } from './web-ui.js';

/**
 * Every route module of the app, in registration order: the one place a room's routes are
 * added (`buildApp` registers this list). The route table records which module added each
 * route; the route-group check (auth) and the OpenAPI sweep read that table. Order matters
 * where two modules could claim one URL: the web UI's catch-all comes after the API, and the
 * hidden 404s of Conductor endpoints Baton lacks come last.
 */
export const ROUTE_MODULES: readonly RouteModule[] = [
  { name: 'api-docs', register: apiDocsRoutes },
  { name: 'auth', register: authRoutes },
  { name: 'metadata', register: metadataRoutes },
  { name: 'workflow', register: workflowRoutes },
  { name: 'run-control', register: runControlRoutes },
  { name: 'tasks', register: taskRoutes },
  { name: 'admin', register: adminRoutes },
  { name: 'metrics', register: metricsRoutes },
  { name: 'repair', register: repairRoutes },
  { name: 'integrations', register: integrationRoutes },
  { name: 'web-ui', register: webUiRoutes },
  { name: 'events', register: eventRoutes },
  { name: 'schedules', register: scheduleRoutes },
  { name: 'instructions', register: instructionRoutes },
  { name: 'payloads', register: payloadRoutes },
  { name: 'task-search', register: taskSearchRoutes },
  { name: 'run-removal', register: runRemovalRoutes },
  { name: 'run-state', register: runStateRoutes },
  { name: 'conductor-unsupported', register: conductorUnsupportedRoutes },
];
