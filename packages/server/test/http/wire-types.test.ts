import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
  BULK_OPERATIONS,
  EVENT_ACTION_FIELDS,
  EVENT_ACTION_KINDS,
  EVENT_HANDLER_FIELDS,
  SCHEDULE_START_REQUEST_FIELDS,
  WORKFLOW_SCHEDULE_ANSWER_ONLY_FIELDS,
  WORKFLOW_SCHEDULE_FIELDS,
} from '@baton/protocol';

import { appSuite, register } from '../helpers/app-suite.js';
import { call } from '../helpers/app.js';
import { storeCases } from '../helpers/stores.js';

/**
 * The bodies the server takes and answers are declared once, in the protocol package, with a
 * list of each type's fields that TypeScript checks against the type. Here the server's
 * published OpenAPI document (which the SDK's types are generated from) and its real answers
 * are checked against those lists: a field added to a route schema, a type or an answer alone
 * fails.
 */

type Schema = { properties?: Record<string, Schema>; items?: Schema; enum?: unknown[] };
type Operation = {
  requestBody?: { content: { 'application/json': { schema: Schema } } };
  parameters?: Array<{ name: string; in: string; schema: Schema }>;
};
type Document = { paths: Record<string, Record<string, Operation>> };

const sorted = (names: Iterable<string>): string[] => [...names].sort();

function bodyOf(doc: Document, path: string, method: string): Schema {
  const schema = doc.paths[path]?.[method]?.requestBody?.content['application/json'].schema;
  assert.ok(schema, `${method.toUpperCase()} ${path} has no JSON body schema`);
  return schema;
}

function propertiesOf(schema: Schema | undefined, where: string): string[] {
  assert.ok(schema?.properties, `${where} has no properties`);
  return sorted(Object.keys(schema.properties));
}

for (const c of storeCases()) {
  void describe(`wire types against the OpenAPI document and the answers (${c.name})`, () => {
    const t = appSuite(c);
    const document = async (): Promise<Document> => {
      const res = await call(t.app, 'GET', '/api/openapi.json');
      assert.equal(res.status, 200);
      return res.body as Document;
    };

    void it('a schedule body has the fields WorkflowSchedule lists, less those the server sets', async () => {
      const body = bodyOf(await document(), '/api/schedule', 'post');
      const answerOnly: readonly string[] = WORKFLOW_SCHEDULE_ANSWER_ONLY_FIELDS;
      assert.deepEqual(
        propertiesOf(body, 'the schedule body'),
        sorted(WORKFLOW_SCHEDULE_FIELDS.filter((f) => !answerOnly.includes(f))),
      );
      assert.deepEqual(
        propertiesOf(body.properties?.startWorkflowRequest, 'startWorkflowRequest'),
        sorted(SCHEDULE_START_REQUEST_FIELDS),
      );
    });

    void it('an event handler body has the fields EventHandler and EventAction list', async () => {
      const body = bodyOf(await document(), '/api/event', 'put');
      assert.deepEqual(propertiesOf(body, 'the handler body'), sorted(EVENT_HANDLER_FIELDS));
      const action = body.properties?.actions?.items;
      assert.deepEqual(propertiesOf(action, 'an action'), sorted(EVENT_ACTION_FIELDS));
      assert.deepEqual(action?.properties?.action?.enum, [...EVENT_ACTION_KINDS]);
    });

    void it('the bulk operations are the protocol list', async () => {
      const op = (await document()).paths['/api/workflow/bulk/{operation}']?.post;
      const param = op?.parameters?.find((p) => p.in === 'path' && p.name === 'operation');
      assert.deepEqual(param?.schema.enum, [...BULK_OPERATIONS]);
    });

    void it('a stored schedule and handler answer only fields their types declare', async () => {
      await register(t.app, [
        { name: 'wire_wf', version: 1, tasks: [{ name: 'n', taskReferenceName: 'n', type: 'NOOP' }] },
      ]);
      const schedule = {
        name: 'wire_schedule',
        cronExpression: '0 0 * * * *',
        zoneId: 'UTC',
        startWorkflowRequest: {
          name: 'wire_wf',
          version: 1,
          input: { a: 1 },
          correlationId: 'c',
          priority: 1,
        },
        description: 'every hour',
        runCatchupScheduleInstances: false,
      };
      assert.equal((await call(t.app, 'POST', '/api/schedule', schedule)).status, 200);
      const saved = await call(t.app, 'GET', '/api/schedule/wire_schedule');
      assert.equal(saved.status, 200);
      const scheduleFields: readonly string[] = WORKFLOW_SCHEDULE_FIELDS;
      for (const key of Object.keys(saved.body as object))
        assert.ok(scheduleFields.includes(key), `the schedule answer's ${key} is not in WorkflowSchedule`);
      assert.equal(typeof saved.body.nextRunTime, 'number');

      const handler = {
        name: 'wire_handler',
        event: 'baton:wire',
        actions: [{ action: 'start_workflow', start_workflow: { name: 'wire_wf' }, expandInlineJSON: true }],
        active: true,
        description: 'starts wire_wf',
      };
      assert.equal((await call(t.app, 'POST', '/api/event', handler)).status, 200);
      const stored = await call(t.app, 'GET', '/api/event/handler/wire_handler');
      assert.equal(stored.status, 200);
      const handlerFields: readonly string[] = EVENT_HANDLER_FIELDS;
      for (const key of Object.keys(stored.body as object))
        assert.ok(handlerFields.includes(key), `the handler answer's ${key} is not in EventHandler`);
      assert.deepEqual(stored.body.actions, handler.actions);
    });
  });
}
