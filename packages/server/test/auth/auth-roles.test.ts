import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { groupOfRoute, ROUTE_GROUP_PREFIXES } from '../../src/auth/route-groups.js';
import { ROUTE_MODULES } from '../../src/http/route-modules.js';
import { routeTable } from '../../src/http/route-table.js';
import { storeCases } from '../helpers/stores.js';
import { authSuite, send } from './auth-fixture.js';

/** One request per endpoint group that a caller with the group's role gets 2xx for. */
const GROUP_REQUESTS = {
  metadata: [['GET', '/api/metadata/taskdefs']],
  workflow: [['GET', '/api/workflow/search?name=nothing']],
  task: [['GET', '/api/tasks/queue/all']],
  event: [
    ['GET', '/api/event'],
    ['GET', '/api/scheduler/schedules'],
  ],
  admin: [
    ['GET', '/api/admin/config'],
    ['GET', '/api/applications'],
    ['GET', '/metrics'],
  ],
} as const;
type Group = keyof typeof GROUP_REQUESTS;

/** The role table of docs/auth.md#route-groups-and-roles: which groups each role may call. */
const ALLOWED: Record<string, readonly Group[]> = {
  'c-admin': ['metadata', 'workflow', 'task', 'event', 'admin'],
  'c-metadata': ['metadata'],
  'c-workflow': ['workflow'],
  'c-task': ['task'],
  'c-event': ['event'],
  'c-none': [],
  'c-worker-a': [],
  'c-keycloak': [],
};
const ROLE_OF: Record<string, string> = {
  metadata: 'metadata',
  workflow: 'workflow',
  task: 'task',
  event: 'event',
  admin: 'admin',
};

for (const storeCase of storeCases()) {
  void describe(`auth: route groups × roles on ${storeCase.name}`, () => {
    const t = authSuite(storeCase);

    void it('puts every route of the route table in exactly one group', () => {
      // The route table the OpenAPI sweep reads too: every route of every module in ROUTE_MODULES.
      const routes = routeTable(t.server.app);
      assert.ok(routes.length > 40, `only ${routes.length} routes seen`);
      const orphans = routes
        .filter((r) => groupOfRoute(r.url) === undefined)
        .map((r) => `${r.method} ${r.url} (module ${r.module})`);
      assert.deepEqual(orphans, [], 'routes without a group: add their prefix to ROUTE_GROUP_PREFIXES');
      // Every module of the table added routes, and no route was added outside one.
      const modules = new Set(routes.map((r) => r.module));
      // Metrics are served only when the server keeps metrics; every other module has routes.
      const silent = ROUTE_MODULES.map((m) => m.name).filter(
        (name) => !modules.has(name) && name !== 'metrics',
      );
      assert.deepEqual(silent, [], 'route modules that added no route');
      const framework = routes.filter((r) => r.module === 'framework').map((r) => `${r.method} ${r.url}`);
      assert.deepEqual(framework, [], 'routes added outside a route module: list them in ROUTE_MODULES');
      // Longest prefix wins, so overlapping prefixes still give one group per route.
      assert.equal(groupOfRoute('/api/scheduler/schedules/:name'), 'event');
      assert.equal(groupOfRoute('/api/schedules/:name'), 'event');
      assert.equal(groupOfRoute('/api/events/executions'), 'event');
      assert.equal(groupOfRoute('/api/secrets/:name'), 'admin');
      assert.equal(groupOfRoute('/api/registry/services'), 'admin');
      assert.equal(groupOfRoute('/healthz'), undefined);
      assert.equal(groupOfRoute('/api/unknown'), undefined);
      assert.equal(new Set(ROUTE_GROUP_PREFIXES.map(([p]) => p)).size, ROUTE_GROUP_PREFIXES.length);
    });

    for (const [client, allowed] of Object.entries(ALLOWED)) {
      void it(`${client}: 2xx on its groups, 403 naming the missing role elsewhere`, async () => {
        const token = await t.token(client);
        for (const [group, requests] of Object.entries(GROUP_REQUESTS) as Array<
          [Group, (typeof GROUP_REQUESTS)[Group]]
        >) {
          for (const [method, url] of requests) {
            const res = await send(t.app, method, url, { token });
            if (allowed.includes(group)) {
              assert.ok(
                res.status >= 200 && res.status < 300,
                `${client} ${method} ${url}: ${res.status} ${res.text}`,
              );
            } else {
              assert.equal(res.status, 403, `${client} ${method} ${url}: ${res.status} ${res.text}`);
              assert.equal(res.body.code, 'FORBIDDEN');
              assert.match(res.body.message, new RegExp(`needs the role '${ROLE_OF[group]}'`));
            }
          }
        }
      });
    }

    void it('keeps /health and the token exchange open, and refuses everything else without a token (401 + WWW-Authenticate)', async () => {
      assert.equal((await send(t.app, 'GET', '/health')).status, 200);
      for (const requests of Object.values(GROUP_REQUESTS)) {
        for (const [method, url] of requests) {
          const res = await send(t.app, method, url);
          assert.equal(res.status, 401, `${method} ${url}`);
          assert.equal(res.body.code, 'UNAUTHENTICATED');
          assert.match(res.body.message, /token is required/);
          assert.equal(res.headers['www-authenticate'], 'Bearer realm="baton"');
        }
      }
      // An unknown path needs a token too, then answers 404.
      assert.equal((await send(t.app, 'GET', '/api/nothing-here')).status, 401);
      const admin = await t.token('c-admin');
      assert.equal((await send(t.app, 'GET', '/api/nothing-here', { token: admin })).status, 404);
    });

    void it('accepts the token in X-Authorization (Conductor SDKs) as in Authorization: Bearer', async () => {
      const token = await t.token('c-metadata');
      const res = await send(t.app, 'GET', '/api/metadata/taskdefs', { token, header: 'x-authorization' });
      assert.equal(res.status, 200, res.text);
      const basic = await t.app.inject({
        method: 'GET',
        url: '/api/metadata/taskdefs',
        headers: { authorization: 'Basic Zm9vOmJhcg==' },
      });
      assert.equal(basic.statusCode, 401);
      assert.match(basic.headers['www-authenticate'] as string, /invalid_request/);
    });

    void it('refuses a request without a token before reading its body', async () => {
      // Malformed JSON from a caller without a token: 401, not 400 — the body was never parsed.
      const res = await send(t.app, 'POST', '/api/metadata/taskdefs', { raw: '{"not json' });
      assert.equal(res.status, 401);
      const token = await t.token('c-metadata');
      const bad = await send(t.app, 'POST', '/api/metadata/taskdefs', { token, raw: '{"not json' });
      assert.equal(bad.status, 400);
    });

    void it('reads roles from a dotted claim path when configured (Keycloak realm_access.roles)', async () => {
      // With the default `roles` claim the Keycloak-shaped client has no role at all…
      const token = await t.token('c-keycloak');
      const res = await send(t.app, 'GET', '/api/metadata/taskdefs', { token });
      assert.equal(res.status, 403);
    });

    void it('puts security headers on every answer, and no CORS headers when CORS is not configured', async () => {
      for (const res of [
        await send(t.app, 'GET', '/health'),
        await send(t.app, 'GET', '/api/metadata/taskdefs'),
        await send(t.app, 'GET', '/api/metadata/taskdefs', { token: await t.token('c-metadata') }),
      ]) {
        assert.equal(res.headers['x-content-type-options'], 'nosniff');
        assert.ok(res.headers['strict-transport-security']);
        assert.ok(res.headers['content-security-policy']);
        assert.equal(res.headers['access-control-allow-origin'], undefined);
      }
    });
  });
}

void describe('auth: roles from a dotted claim path', () => {
  const [storeCase] = storeCases();
  if (!storeCase) return;
  const t = authSuite(storeCase, { BATON_AUTH_ROLES_CLAIM: 'realm_access.roles' });
  void it('finds realm_access.roles', async () => {
    const token = await t.token('c-keycloak');
    assert.equal((await send(t.app, 'GET', '/api/metadata/taskdefs', { token })).status, 200);
    assert.equal((await send(t.app, 'GET', '/api/workflow/search', { token })).status, 403);
  });
});

void describe('auth: renamed roles', () => {
  const [storeCase] = storeCases();
  if (!storeCase) return;
  const t = authSuite(storeCase, {
    BATON_AUTH_ROLE_METADATA: 'workflow',
    BATON_AUTH_ROLE_WORKFLOW: 'metadata',
  });
  void it('gives each group the role its setting names', async () => {
    const meta = await t.token('c-metadata');
    assert.equal((await send(t.app, 'GET', '/api/workflow/search', { token: meta })).status, 200);
    const res = await send(t.app, 'GET', '/api/metadata/taskdefs', { token: meta });
    assert.equal(res.status, 403);
    assert.match(res.body.message, /needs the role 'workflow'/);
  });
});

void describe('auth: /metrics open by setting', () => {
  const [storeCase] = storeCases();
  if (!storeCase) return;
  const t = authSuite(storeCase, { BATON_METRICS_AUTH: 'open' });
  void it('serves /metrics without a token, and nothing else', async () => {
    const res = await send(t.app, 'GET', '/metrics');
    assert.equal(res.status, 200);
    assert.match(res.text, /# HELP/);
    assert.equal((await send(t.app, 'GET', '/api/admin/config')).status, 401);
  });
});
