import type { RoleNames } from '../config/auth-options.js';

/**
 * Every route belongs to exactly one caller group
 * (docs/design/security.md#caller-groups-and-roles). The group is found from the route's URL
 * pattern by its longest matching prefix in this table, so a route added later under a known prefix
 * joins its group without being listed. A route matching no prefix is treated as `admin` at run
 * time, and the route-table test fails until it is given a group.
 */
export type RouteGroup = 'open' | keyof RoleNames;

/** Prefix (of the route pattern, e.g. `/api/tasks/:taskId`) → group. Longest prefix wins. */
export const ROUTE_GROUP_PREFIXES: ReadonlyArray<readonly [prefix: string, group: RouteGroup]> = [
  // No token needed: liveness, the token exchange itself, and the API's own description.
  ['/health', 'open'],
  ['/health/live', 'open'],
  ['/health/ready', 'open'],
  ['/api/health', 'open'],
  ['/api/token', 'open'],
  // Whether auth is on and who the sent token is (it checks the token itself).
  ['/api/auth/session', 'open'],
  ['/api/openapi.json', 'open'],
  ['/api/docs', 'open'],
  // The web UI's files: a static page; everything it shows comes through the API with a token.
  ['/', 'open'],
  ['/*', 'open'],
  // Baton-served payload URLs carry their own authority: an HMAC signature with an expiry.
  ['/api/payloads', 'open'],
  ['/api/metadata', 'metadata'],
  ['/api/workflow', 'workflow'],
  ['/api/tasks', 'task'],
  ['/api/queue', 'task'],
  ['/api/human', 'task'],
  ['/api/event', 'event'],
  ['/api/schedule', 'event'],
  ['/api/scheduler', 'event'],
  // Conductor's scheduler admin (pause or resume a node's firing, requeue) is an operator's tool.
  ['/api/scheduler/admin', 'admin'],
  ['/api/admin', 'admin'],
  ['/api/secrets', 'admin'],
  ['/api/secrets-v2', 'admin'],
  ['/api/registry', 'admin'],
  ['/api/integrations', 'admin'],
  ['/api/prompts', 'admin'],
  ['/api/applications', 'admin'],
  ['/api/environment', 'admin'],
  ['/metrics', 'admin'],
];

/**
 * A prefix matches at a path boundary, or as the singular of a plural segment (`/api/event`
 * covers `/api/events/...`), never in the middle of a word (`/health` is not `/healthz`).
 */
function matches(url: string, prefix: string, group: RouteGroup): boolean {
  if (!url.startsWith(prefix)) return false;
  const next = url.charAt(prefix.length);
  if (next === '' || next === '/') return true;
  return group !== 'open' && next === 's' && ['', '/'].includes(url.charAt(prefix.length + 1));
}

/** The group of a route pattern, or undefined when no prefix covers it. */
export function groupOfRoute(url: string): RouteGroup | undefined {
  let best: readonly [string, RouteGroup] | undefined;
  for (const entry of ROUTE_GROUP_PREFIXES) {
    if (matches(url, entry[0], entry[1]) && (best === undefined || entry[0].length > best[0].length))
      best = entry;
  }
  return best?.[1];
}
