import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { routeTable } from '../../src/http/route-table.js';
import { call } from '../helpers/app.js';
import { appSuite, register } from '../helpers/app-suite.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { storeCases } from '../helpers/stores.js';
import { type Operation, operationsOf, toOpenApiPath } from '../sweep/openapi-operations.js';
import { type SweepCase, casesFor } from '../sweep/sweep-cases.js';
import { storeSnapshot } from '../sweep/store-snapshot.js';

/**
 * The bad-input sweep: every operation of `/api/openapi.json` (read at run time, so routes added
 * later are swept without editing this file) gets malformed JSON, foreign content types, wrong
 * JSON types per field, absurd numbers, deep nesting, huge and odd strings, unknown enum values,
 * odd path ids and prototype-pollution keys. Every answer must be below 500 with the error body
 * and no stack or SQL; invalid input must be a 4xx; and the store must be unchanged afterwards.
 */

const SEED = 20261125;
const BODY_LIMIT = 256 * 1024;
const LEAKS =
  /\n\s+at |node_modules|SQLITE_|syntax error at or near|violates .* constraint|relation "|\bpg_|TypeError|RangeError/i;

function describeCase(c: SweepCase): string {
  return `${c.method} ${c.url.slice(0, 120)} [${c.label}]`;
}

for (const storeCase of storeCases()) {
  describe(`bad-input sweep over every route (${storeCase.name})`, () => {
    const t = appSuite(storeCase, { env: { BATON_MAX_BODY_BYTES: String(BODY_LIMIT) } });
    const pathValues: Record<string, string> = {};
    let operations: Operation[] = [];

    before(async () => {
      await register(
        t.app,
        [
          workflowDef('sweep_flow', [
            { name: 'sweep_task', taskReferenceName: 'simple_ref', type: 'SIMPLE' },
          ]),
        ],
        workerTaskDefs(['sweep_task']),
      );
      const start = async (): Promise<string> => {
        const res = await call(t.app, 'POST', '/api/workflow', {
          name: 'sweep_flow',
          correlationId: 'sweep-corr',
        });
        assert.equal(res.status, 200, res.text);
        return res.text;
      };
      const running = await start();
      const ended = await start();
      assert.equal((await call(t.app, 'DELETE', `/api/workflow/${ended}?reason=sweep`)).status, 200);
      const run = await call(t.app, 'GET', `/api/workflow/${running}`);
      Object.assign(pathValues, {
        workflowId: running,
        name: 'sweep_flow',
        taskType: 'sweep_task',
        taskId: run.body.tasks[0].taskId,
        ref: 'simple_ref',
        version: '1',
        correlationId: 'sweep-corr',
      });
      const doc = await call(t.app, 'GET', '/api/openapi.json');
      assert.equal(doc.status, 200);
      operations = operationsOf(doc.body);
    });

    it('documents every route it serves in /api/openapi.json', () => {
      const documented = new Set(operations.map((op) => `${op.method} ${op.path}`));
      const gets = new Set(
        routeTable(t.app)
          .filter((r) => r.method === 'GET')
          .map((r) => r.url),
      );
      const missing = routeTable(t.app)
        .filter((r) => !r.hidden)
        // Fastify adds a HEAD route to each GET; the GET is what the document shows.
        .filter((r) => !(r.method === 'HEAD' && gets.has(r.url)))
        .map((r) => `${r.method} ${toOpenApiPath(r.url)}`)
        .filter((key) => !documented.has(key));
      assert.ok(routeTable(t.app).length > 20, 'the route table was recorded');
      assert.deepEqual(missing, [], 'routes served but missing from the OpenAPI document');
    });

    it(
      'answers every bad input with a 4xx error body and changes nothing',
      { timeout: 600_000 },
      async (ctx) => {
        assert.ok(operations.length > 20, `only ${operations.length} operations in the document`);
        const failures: string[] = [];
        let sent = 0;
        const initial = await storeSnapshot(t.app);
        for (const op of operations) {
          const cases = casesFor(op, { pathValues, bodyLimit: BODY_LIMIT, seed: SEED });
          for (const c of cases) {
            sent++;
            const res = await t.app.inject({
              method: c.method,
              url: c.url,
              ...(c.headers && { headers: c.headers }),
              ...(c.payload !== undefined && { payload: c.payload }),
            });
            const text = res.body;
            const where = `${describeCase(c)} → ${res.statusCode} ${text.slice(0, 200)}`;
            if (res.statusCode >= 500) {
              failures.push(where);
              continue;
            }
            if (c.expect === 'reject' && (res.statusCode < 400 || res.statusCode >= 500))
              failures.push(`expected 4xx: ${where}`);
            if (res.statusCode >= 400 && LEAKS.test(text)) failures.push(`leaks internals: ${where}`);
            if (res.statusCode >= 400) {
              let body: any;
              try {
                body = JSON.parse(text);
              } catch {
                body = undefined;
              }
              const ok =
                body &&
                body.status === res.statusCode &&
                typeof body.message === 'string' &&
                typeof body.retryable === 'boolean';
              if (!ok) failures.push(`no error body: ${where}`);
            }
          }
          const now = await storeSnapshot(t.app);
          if (now !== initial) {
            failures.push(`${op.method} ${op.path}: the store changed after its cases`);
            break;
          }
        }
        assert.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype was polluted');
        ctx.diagnostic(`${sent} requests over ${operations.length} operations`);
        assert.ok(sent > 1000, `only ${sent} requests sent`);
        assert.deepEqual(failures.slice(0, 60), [], `${failures.length} of ${sent} answers were wrong`);
      },
    );
  });
}
