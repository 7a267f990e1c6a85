import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';

import type { HTTPMethods } from 'fastify';

import { appSuite } from '../helpers/app-suite.js';
import { storeCases } from '../helpers/stores.js';
import { CONDUCTOR_ENDPOINTS } from '../fixtures/conductor-endpoints.js';

/**
 * No Conductor request is answered by the wrong route. For every endpoint Conductor's clients
 * call (the fixture list, plus every URL the installed Conductor JavaScript SDK calls, read from
 * its bundle), the path is filled with placeholder values and looked up in Baton's router:
 *  - no route (or only the web UI's catch-all): Baton must answer 404 with its error body;
 *  - a route that reads one of Conductor's literal segments as its own parameter
 *    (`DELETE /api/metadata/workflow/{name}/tags` reaching `…/{name}/{version}`) is a collision,
 *    unless listed below as Baton serving that endpoint through its parameter;
 *  - every answer is an answer: never a 5xx.
 */

/** Endpoints Baton serves through a route parameter that takes Conductor's literal as a value. */
const SERVED_THROUGH_PARAMETER = new Set([
  'PUT /api/workflow/bulk/pause',
  'PUT /api/workflow/bulk/resume',
  'POST /api/workflow/bulk/restart',
  'POST /api/workflow/bulk/retry',
  'POST /api/workflow/bulk/terminate',
]);

/** The endpoints the installed Conductor SDK's resource services call (`url: "/api/…"`). */
function sdkEndpoints(): string[] {
  const require = createRequire(import.meta.url);
  const bundle = readFileSync(require.resolve('@io-orkes/conductor-javascript'), 'utf8');
  const found = new Set<string>();
  for (const match of bundle.matchAll(/url: "(\/api\/[^"]*)"/g)) {
    const before = bundle.slice(Math.max(0, match.index - 400), match.index);
    const calls = [...before.matchAll(/\.(get|post|put|delete|patch)\(\{/g)];
    const method = calls.at(-1)?.[1];
    if (method !== undefined) found.add(`${method.toUpperCase()} ${match[1]}`);
  }
  return [...found];
}

interface Probe {
  endpoint: string;
  method: HTTPMethods;
  url: string;
  literals: Set<string>;
}

function probeOf(endpoint: string): Probe {
  const [method, template] = endpoint.split(' ') as [HTTPMethods, string];
  let n = 0;
  const url = template.replace(/\{[^}]+\}/g, () => `probe-value-${++n}`);
  const literals = new Set(
    template.split('/').filter((segment) => segment !== '' && !segment.startsWith('{')),
  );
  return { endpoint, method, url, literals };
}

for (const c of storeCases().slice(0, 1)) {
  void describe(`Conductor endpoints reach the right route or none (${c.name})`, () => {
    const t = appSuite(c);

    void it('reads every Conductor endpoint as its own or answers 404, never another route', async () => {
      const fromSdk = sdkEndpoints();
      assert.ok(fromSdk.length > 150, `only ${fromSdk.length} endpoints read from the SDK bundle`);
      const endpoints = [...new Set([...CONDUCTOR_ENDPOINTS, ...fromSdk])].sort();
      const failures: string[] = [];
      let missing = 0;
      for (const probe of endpoints.map(probeOf)) {
        const route = t.app.findRoute({ method: probe.method, url: probe.url });
        const params = Object.entries((route?.params ?? {}) as Record<string, string>);
        const catchAll = params.some(([key]) => key === '*');
        const misread = params.filter(([, value]) => probe.literals.has(value));
        if (route && !catchAll && misread.length > 0 && !SERVED_THROUGH_PARAMETER.has(probe.endpoint)) {
          failures.push(
            `${probe.endpoint} reaches another route, reading ${misread.map(([k, v]) => `${v} as ${k}`).join(', ')}`,
          );
          continue;
        }
        const withBody = probe.method === 'POST' || probe.method === 'PUT';
        const res = await t.app.inject({
          method: probe.method,
          url: probe.url,
          ...(withBody && { payload: '{}', headers: { 'content-type': 'application/json' } }),
        });
        const where = `${probe.endpoint} → ${res.statusCode} ${res.body.slice(0, 160)}`;
        if (res.statusCode >= 500) failures.push(`server error: ${where}`);
        if (!route || catchAll) {
          missing++;
          let body: { status?: unknown; message?: unknown } | undefined;
          try {
            body = JSON.parse(res.body) as typeof body;
          } catch {
            body = undefined;
          }
          if (res.statusCode !== 404 || body?.status !== 404 || typeof body.message !== 'string')
            failures.push(`expected a 404 error body for an endpoint Baton lacks: ${where}`);
        }
      }
      assert.ok(missing > 50, `only ${missing} endpoints were missing: the probe is not reaching the router`);
      assert.deepEqual(failures, [], `${failures.length} of ${endpoints.length} endpoints answered wrongly`);
    });
  });
}
