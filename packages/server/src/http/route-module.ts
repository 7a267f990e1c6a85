import type { FastifyInstance } from 'fastify';

import type { AppDeps } from './app-deps.js';

/**
 * The one shape of a room's HTTP routes: a name and a function that adds them to the app, given
 * the part of `AppDeps` it declares (a room keeps its own deps type, so it does not import the
 * HTTP room; the table in `route-modules.ts` checks the shape when it lists the module).
 */
export interface RouteModule {
  /** Names the module in the route table, so a check that fails can say who owns the route. */
  readonly name: string;
  readonly register: (app: FastifyInstance, deps: AppDeps) => void | Promise<void>;
}
