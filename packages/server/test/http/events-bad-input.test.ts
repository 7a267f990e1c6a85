import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { appSuite } from '../helpers/app-suite.js';
import { call } from '../helpers/app.js';
import { storeCases } from '../helpers/stores.js';

/**
 * Malformed input to every event, schedule and instruction route answers 4xx with the error body
 * and never a 5xx, whatever the store.
 */

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const junkBodies: unknown[] = [null, [], 'text', 42, {}, { name: {} }, { name: 'x'.repeat(100_000) }];

const cases: Array<[Method, string, unknown?]> = [
  ['POST', '/api/event'],
  ['PUT', '/api/event'],
  ['GET', '/api/event/executions?start=-1'],
  ['GET', '/api/event/executions?size=0'],
  ['GET', '/api/event/executions?size=abc'],
  ['GET', '/api/event/amqp:q?activeOnly=maybe'],
  ['DELETE', `/api/event/${'x'.repeat(300)}`],
  ['POST', '/api/schedule'],
  ['PUT', '/api/schedule'],
  ['POST', '/api/scheduler/schedules'],
  ['GET', '/api/schedule/nextFewSchedules'],
  ['GET', '/api/scheduler/nextFewSchedules?cronExpression=@@'],
  ['GET', '/api/scheduler/nextFewSchedules?cronExpression=*+*+*+*+*+*+*+*'],
  ['GET', '/api/scheduler/nextFewSchedules?cronExpression=*+*+*+*+*&zoneId=../../etc'],
  ['GET', '/api/scheduler/nextFewSchedules?cronExpression=*+*+*+*+*&scheduleStartTime=8640000000000000'],
  ['GET', '/api/scheduler/nextFewSchedules?cronExpression=*+*+*+*+*&limit=100000'],
  ['GET', '/api/scheduler/nextFewSchedules?cronExpression=0+0+30+2+*&limit=5'],
  ['GET', '/api/schedule/x/executions?start=-5'],
  ['GET', '/api/scheduler/search/executions?size=100000'],
  ['PUT', '/api/scheduler/bulk/pause'],
  ['GET', '/api/scheduler/schedules/x/pause?reason=' + 'r'.repeat(2000)],
  ['POST', '/api/metadata/instructions'],
  ['GET', '/api/metadata/instructions/x?version=0'],
  ['GET', '/api/metadata/instructions/x/abc'],
  ['DELETE', '/api/metadata/instructions/x/-1'],
];

const validish: Array<[Method, string, unknown]> = [
  ['POST', '/api/event', { name: 'h', event: 'amqp:q', actions: [{ action: 'start_workflow' }] }],
  [
    'POST',
    '/api/event',
    { name: 'h', event: 'amqp:', actions: [{ action: 'start_workflow', start_workflow: { name: 'w' } }] },
  ],
  ['POST', '/api/event', { name: 'h', event: 'amqp:q', actions: [{ action: 'launch_rocket' }] }],
  [
    'POST',
    '/api/event',
    { name: 'h', event: 'baton:q', actions: [{ action: 'complete_task', complete_task: {} }] },
  ],
  [
    'POST',
    '/api/event',
    {
      name: 'h',
      event: 'baton:q',
      actions: [
        { action: 'update_workflow_variables', update_workflow_variables: { workflowId: 'w', variables: 3 } },
      ],
    },
  ],
  [
    'POST',
    '/api/event',
    {
      name: 'h',
      event: 'baton:q',
      condition: 5,
      actions: [{ action: 'start_workflow', start_workflow: { name: 'w' } }],
    },
  ],
  ['POST', '/api/schedule', { name: 'n', cronExpression: '* * * * *', startWorkflowRequest: null }],
  [
    'POST',
    '/api/schedule',
    { name: 'n', cronExpression: '* * * * *', startWorkflowRequest: { name: 'w', priority: 500 } },
  ],
  [
    'POST',
    '/api/schedule',
    { name: 'n', cronExpression: '* * * * *', startWorkflowRequest: { name: 'w' }, scheduleStartTime: -1 },
  ],
  [
    'POST',
    '/api/schedule',
    {
      name: 'n',
      cronExpression: '* * * * *',
      startWorkflowRequest: { name: 'w' },
      scheduleStartTime: 10,
      scheduleEndTime: 5,
    },
  ],
  ['POST', '/api/schedule', { name: 'n', cronExpression: '0 0 31 2 *', startWorkflowRequest: { name: 'w' } }],
  [
    'POST',
    '/api/schedule',
    { name: 'n', cronExpression: '* * * * *', zoneId: '', startWorkflowRequest: { name: 'w' } },
  ],
  ['POST', '/api/metadata/instructions', { name: 'n', text: 5 }],
  ['POST', '/api/metadata/instructions', { name: 'n', text: 't', version: 1.5 }],
  ['POST', '/api/metadata/instructions', { name: 'n', text: 't', extra: true }],
];

for (const c of storeCases()) {
  void describe(`events, schedules and instructions refuse bad input (${c.name})`, () => {
    const t = appSuite(c);

    void it('never answers 5xx to malformed bodies, params and queries', async () => {
      const problems: string[] = [];
      const check = async (method: Method, url: string, body?: unknown): Promise<void> => {
        const res = await call(t.app, method, url, body);
        if (res.status >= 500)
          problems.push(
            `${method} ${url} ${JSON.stringify(body)?.slice(0, 80)} → ${res.status} ${res.text.slice(0, 200)}`,
          );
        // 414 (a path parameter over the router's length limit) is answered by the router itself.
        if (res.status >= 400 && res.status !== 414) {
          assert.equal(
            typeof res.body?.message,
            'string',
            `${method} ${url}: error body ${res.text.slice(0, 200)}`,
          );
          assert.equal(res.body?.status, res.status);
        }
      };
      for (const [method, url] of cases) {
        if (method === 'GET' || method === 'DELETE') await check(method, url);
        else for (const body of junkBodies) await check(method, url, body);
      }
      for (const [method, url, body] of validish) {
        const res = await call(t.app, method, url, body);
        assert.ok(
          res.status >= 400 && res.status < 500,
          `${method} ${url} ${JSON.stringify(body)} → ${res.status} ${res.text}`,
        );
      }
      assert.deepEqual(problems, []);
    });
  });
}
