import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { Ajv } from 'ajv';

import { call } from '../helpers/app.js';
import { appSuite, register } from '../helpers/app-suite.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { storeCases } from '../helpers/stores.js';
import {
  type Operation,
  type Schema,
  edgeValues,
  objectSchemaOf,
  operationsOf,
  validValue,
} from '../sweep/openapi-operations.js';

/**
 * The other side of the bad-input sweep: input that is valid but at the edge of every range the
 * OpenAPI document states (each integer at its minimum and maximum, each string at its longest
 * or full of characters that mean something elsewhere, each enum value), sent to every operation
 * with the ids of real runs, tasks and definitions. Such input may change things; it must never
 * get a 5xx, and every run must stay readable afterwards.
 */

const ajv = new Ajv({ strict: false, coerceTypes: false });
const queryAjv = new Ajv({ strict: false, coerceTypes: 'array' });

for (const storeCase of storeCases()) {
  describe(`boundary sweep over every route (${storeCase.name})`, () => {
    const t = appSuite(storeCase);
    const pathValues: Record<string, string> = {};
    let operations: Operation[] = [];

    before(async () => {
      await register(
        t.app,
        [
          workflowDef('sweep_flow', [
            { name: 'sweep_task', taskReferenceName: 'simple_ref', type: 'SIMPLE' },
            { name: 'hold', taskReferenceName: 'hold', type: 'WAIT' },
          ]),
        ],
        workerTaskDefs(['sweep_task']),
      );
      const started = await call(t.app, 'POST', '/api/workflow', {
        name: 'sweep_flow',
        correlationId: 'sweep-corr',
      });
      assert.equal(started.status, 200, started.text);
      const run = await call(t.app, 'GET', `/api/workflow/${started.text}`);
      Object.assign(pathValues, {
        workflowId: started.text,
        name: 'sweep_flow',
        taskType: 'sweep_task',
        taskId: run.body.tasks[0].taskId,
        ref: 'simple_ref',
        version: '1',
        correlationId: 'sweep-corr',
      });
      operations = operationsOf((await call(t.app, 'GET', '/api/openapi.json')).body);
    });

    it(
      'answers input at the edge of every range without a 5xx and leaves every run readable',
      { timeout: 600_000 },
      async (ctx) => {
        const failures: string[] = [];
        let sent = 0;
        const send = async (method: Operation['method'], url: string, body?: unknown): Promise<void> => {
          sent++;
          const began = Date.now();
          const res = await call(t.app, method as 'GET' | 'POST' | 'PUT' | 'DELETE', url, body);
          if (Date.now() - began > 5000)
            ctx.diagnostic(`slow: ${method} ${url.slice(0, 100)} ${Date.now() - began} ms`);
          if (res.status >= 500)
            failures.push(
              `${method} ${url.slice(0, 120)} ${JSON.stringify(body)?.slice(0, 120)} → ${res.status} ${res.text.slice(0, 200)}`,
            );
        };
        for (const op of operations) {
          const path = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
            const param = op.pathParams.find((p) => p.name === name);
            return encodeURIComponent(pathValues[name] ?? String(validValue(param?.schema)));
          });
          // Operations that wait (a synchronous execution) wait as little as they can on every request.
          const waits = op.queryParams
            .filter((q) => /wait|timeout/i.test(q.name) && typeof q.schema.minimum === 'number')
            .map((q) => `${q.name}=${String(q.schema.minimum)}&`)
            .join('');
          for (const q of op.queryParams) {
            // A wait at its longest is valid and only slow: waits get their shortest.
            const values = /wait|timeout/i.test(q.name)
              ? edgeValues(q.schema).slice(0, 1)
              : edgeValues(q.schema);
            for (const value of values) {
              if (!queryAjv.validate(q.schema, String(value))) continue;
              await send(op.method, `${path}?${waits}${q.name}=${encodeURIComponent(String(value))}`);
            }
          }
          const bodySchema = op.body;
          if (!bodySchema || op.method === 'GET') continue;
          const fieldsOf = (schema: Schema | undefined): Array<[string, Schema]> =>
            Object.entries<Schema>(objectSchemaOf(schema)?.properties ?? {});
          const base = (schema: Schema | undefined): Record<string, unknown> => {
            const value = validValue(objectSchemaOf(schema)) as Record<string, unknown>;
            for (const key of Object.keys(value)) if (pathValues[key]) value[key] = pathValues[key];
            return value;
          };
          const arraySchema =
            bodySchema.type === 'array'
              ? bodySchema
              : (bodySchema.anyOf as Schema[] | undefined)?.find((s) => s.type === 'array');
          const itemSchema = objectSchemaOf(bodySchema) ?? objectSchemaOf(arraySchema?.items);
          for (const [key, field] of fieldsOf(itemSchema)) {
            for (const value of edgeValues(field)) {
              const item = { ...base(itemSchema), [key]: value };
              const payload: unknown = objectSchemaOf(bodySchema) ? item : [item];
              if (!ajv.validate(bodySchema, payload)) continue;
              await send(op.method, `${path}?${waits}`, payload);
            }
          }
        }
        await t.server.timers.fireDue(Date.now() + 86_400_000);
        const search = await call(t.app, 'GET', '/api/workflow/search?size=5000');
        assert.equal(search.status, 200, search.text);
        for (const { workflowId } of search.body.results as Array<{ workflowId: string }>) {
          const res = await call(t.app, 'GET', `/api/workflow/${workflowId}`);
          if (res.status !== 200)
            failures.push(`run ${workflowId} unreadable: ${res.status} ${res.text.slice(0, 200)}`);
        }
        ctx.diagnostic(
          `${sent} requests over ${operations.length} operations, ${search.body.results.length} runs read back`,
        );
        assert.ok(sent > 200, `only ${sent} requests sent`);
        assert.deepEqual(failures.slice(0, 40), [], `${failures.length} of ${sent} answers were wrong`);
      },
    );
  });
}
