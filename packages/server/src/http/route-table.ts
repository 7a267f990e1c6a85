import type { FastifyInstance, HTTPMethods } from 'fastify';

/** One route as registered: what the OpenAPI document must show unless the route is hidden. */
export interface RouteEntry {
  method: string;
  url: string;
  hidden: boolean;
}

const tables = new WeakMap<FastifyInstance, RouteEntry[]>();

/**
 * Records every route registered on `app` from now on (in any plugin), so checks can compare the
 * routes Baton serves with the routes its OpenAPI document describes.
 */
export function recordRoutes(app: FastifyInstance): void {
  const table: RouteEntry[] = [];
  tables.set(app, table);
  app.addHook('onRoute', (route) => {
    const methods: readonly HTTPMethods[] = Array.isArray(route.method) ? route.method : [route.method];
    const schema = route.schema;
    for (const method of methods) {
      table.push({ method: method.toUpperCase(), url: route.url, hidden: schema?.hide === true });
    }
  });
}

/** The routes recorded on `app` (empty when none were). */
export function routeTable(app: FastifyInstance): readonly RouteEntry[] {
  return tables.get(app) ?? [];
}
