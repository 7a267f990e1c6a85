import type { FastifyInstance, HTTPMethods } from 'fastify';

/** One route as registered: what the OpenAPI document must show unless the route is hidden. */
export interface RouteEntry {
  method: string;
  url: string;
  hidden: boolean;
  /** The route module (`route-modules.ts`) that registered it; `framework` for plugins' own. */
  module: string;
}

interface Recording {
  readonly entries: RouteEntry[];
  current: string | undefined;
}

const recordings = new WeakMap<FastifyInstance, Recording>();

/**
 * Records every route registered on `app` from now on (in any plugin), so checks can compare the
 * routes Baton serves with the routes its OpenAPI document describes and the route groups auth
 * knows. This is the one list of routes those checks read.
 */
export function recordRoutes(app: FastifyInstance): void {
  const recording: Recording = { entries: [], current: undefined };
  recordings.set(app, recording);
  app.addHook('onRoute', (route) => {
    const methods: readonly HTTPMethods[] = Array.isArray(route.method) ? route.method : [route.method];
    const schema = route.schema;
    for (const method of methods) {
      recording.entries.push({
        method: method.toUpperCase(),
        url: route.url,
        hidden: schema?.hide === true,
        module: recording.current ?? 'framework',
      });
    }
  });
}

/** Runs `register` with the routes it adds recorded as the module `name`'s. */
export async function routeModuleScope(
  app: FastifyInstance,
  name: string,
  register: () => void | Promise<void>,
): Promise<void> {
  const recording = recordings.get(app);
  if (recording) recording.current = name;
  try {
    await register();
    // Load the plugins the module registered now, so their routes are recorded as its own.
    await app.after();
  } finally {
    if (recording) recording.current = undefined;
  }
}

/** The routes recorded on `app` (empty when none were). */
export function routeTable(app: FastifyInstance): readonly RouteEntry[] {
  return recordings.get(app)?.entries ?? [];
}
