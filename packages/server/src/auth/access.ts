import type { RoleNames } from '../config/auth-options.js';
import type { Identity } from './identity.js';
import type { RouteGroup } from './route-groups.js';

/** What a caller may do on a route of a group. */
export type Verdict = { allowed: true; workerOnly: boolean } | { allowed: false; missingRole: string };

/**
 * The role rule (docs/auth.md#route-groups-and-roles): admin may do everything; a group's role
 * gives its routes; a `worker:<type>` role gives the worker routes of the task group, for tasks of
 * those types only (`workerOnly`: the task's type is checked once the request names it).
 */
export function decide(
  identity: Identity,
  group: RouteGroup,
  roles: RoleNames,
  isWorkerRoute: boolean,
): Verdict {
  if (group === 'open' || identity.roles.has(roles.admin)) return { allowed: true, workerOnly: false };
  const needed = roles[group];
  if (identity.roles.has(needed)) return { allowed: true, workerOnly: false };
  if (group === 'task' && isWorkerRoute && (identity.allWorkerTypes || identity.workerTypes.size > 0)) {
    return { allowed: true, workerOnly: true };
  }
  return { allowed: false, missingRole: needed };
}
