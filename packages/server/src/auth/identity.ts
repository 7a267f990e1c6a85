import type { TaskAccess } from './task-access.js';

/** Who is calling, as established by a verified token (or anonymous when auth is off). */
export interface Identity {
  /** `sub` of an identity-provider token, `app:<id>` for an application key; `anonymous` when off. */
  readonly subject: string;
  readonly via: 'oidc' | 'application' | 'anonymous';
  /** Every role the token carries (worker roles included). */
  readonly roles: ReadonlySet<string>;
  /** Task types named by `worker:<type>` roles. */
  readonly workerTypes: ReadonlySet<string>;
  /** A `worker:*` role: every task type. */
  readonly allWorkerTypes: boolean;
}

export const WORKER_ROLE_PREFIX = 'worker:';

export function identityOf(subject: string, via: Identity['via'], roles: Iterable<string>): Identity {
  const set = new Set<string>();
  const workerTypes = new Set<string>();
  let allWorkerTypes = false;
  for (const role of roles) {
    set.add(role);
    if (role.startsWith(WORKER_ROLE_PREFIX)) {
      const type = role.slice(WORKER_ROLE_PREFIX.length);
      if (type === '*') allWorkerTypes = true;
      else if (type !== '') workerTypes.add(type);
    }
  }
  return { subject, via, roles: set, workerTypes, allWorkerTypes };
}

export const ANONYMOUS: Identity = Object.freeze({
  subject: 'anonymous',
  via: 'anonymous' as const,
  roles: new Set<string>(),
  workerTypes: new Set<string>(),
  allWorkerTypes: false,
});

/** The string roles found at a dotted path of the claims (`realm_access.roles`); [] when absent. */
export function rolesAt(claims: Record<string, unknown>, path: string): string[] {
  // A claim whose own name contains dots (some providers use URLs) is tried whole first.
  let value: unknown = path in claims ? claims[path] : undefined;
  if (value === undefined) {
    value = claims;
    for (const part of path.split('.')) {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
      value = (value as Record<string, unknown>)[part];
    }
  }
  if (typeof value === 'string') return value.split(/[\s,]+/).filter(Boolean);
  if (Array.isArray(value)) return value.filter((r): r is string => typeof r === 'string');
  return [];
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the authentication hook before the body is read; ANONYMOUS when auth is off. */
    identity?: Identity;
    /**
     * Set for a caller limited to some tasks (a worker role): what the services check on the
     * task a route names. Unset: every task (the task role, or auth off).
     */
    taskAccess?: TaskAccess;
  }
}
