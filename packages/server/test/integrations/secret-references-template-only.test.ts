import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { call, type TestApp, testApp } from '../helpers/app.js';
import { register } from '../helpers/app-suite.js';
import { eventually, json, startHttpTarget, type HttpTarget } from '../helpers/http-target.js';
import { pollOneTask, postResult, runOf, startRun } from '../helpers/runs.js';
import { everyStoredRow } from '../helpers/store-text.js';
import { type OpenedStore, storeCases } from '../helpers/stores.js';

/**
 * A `${workflow.secrets.NAME}` reference is honoured only where the definition's author wrote
 * it (the registered template of a call's input); the same text arriving as data (run input,
 * a worker's output, variables, a skip's or a signal's body, a rerun's task input, a test
 * run's mocks) is sent as that literal text. Every request a real listener on 127.0.0.1 gets
 * is checked for the admin secret's value.
 */

const KEY = Buffer.alloc(32, 7).toString('base64');
const ADMIN = 'adm1n-v4lue-Never-Sent';
const USER = 'us3r-v4lue-sent-by-template';
const ADMIN_REF = '${workflow.secrets.SEC_ADMIN}';

for (const storeCase of storeCases()) {
  void describe(`secret references only from the template on ${storeCase.name}`, () => {
    let opened: OpenedStore;
    let t: TestApp;
    let target: HttpTarget;
    const received = (): string =>
      target.requests.map((r) => `${r.method} ${r.url} ${JSON.stringify(r.headers)} ${r.body}`).join('\n');
    const seen = (path: string) => target.requests.filter((r) => (r.url ?? '').startsWith(path));

    before(async () => {
      opened = await storeCase.open();
      t = await testApp(opened.store, { env: { BATON_SECRETS_KEY: KEY } });
      target = await startHttpTarget((_req, res) => json(res, 200, { ok: true }));
      for (const [name, value] of [
        ['SEC_ADMIN', ADMIN],
        ['SEC_USER', USER],
      ] as const) {
        const res = await call(t.app, 'PUT', `/api/secrets/${name}`, { value });
        assert.equal(res.status, 201, res.text);
      }
      await register(
        t.app,
        [
          httpFlow('wfWebhook', [], { uri: '${workflow.input.callbackUrl}', method: 'GET' }),
          httpFlow('from_output', [simple('w')], {
            uri: `\${workflow.input.base}/output?k=\${w.output.x}`,
            method: 'POST',
            headers: { 'X-Data': '${w.output.x}' },
            body: '${w.output}',
          }),
          httpFlow(
            'from_variables',
            [
              {
                name: 'setv',
                taskReferenceName: 'setv',
                type: 'SET_VARIABLE',
                inputParameters: { v: '${workflow.input.v}' },
              },
            ],
            { uri: `\${workflow.input.base}/variables?k=\${workflow.variables.v}`, method: 'GET' },
          ),
          httpFlow(
            'from_signal',
            [{ name: 'wt', taskReferenceName: 'wt', type: 'WAIT', inputParameters: {} }],
            { uri: '${workflow.input.base}/signal', method: 'POST', body: '${wt.output}' },
          ),
          {
            name: 'starts_from_data',
            ownerEmail: 'test@example.com',
            tasks: [
              {
                name: 'start',
                taskReferenceName: 'start',
                type: 'START_WORKFLOW',
                inputParameters: { startWorkflow: { workflowDef: '${workflow.input.def}', input: {} } },
              },
            ],
          },
          {
            name: 'child_from_data',
            ownerEmail: 'test@example.com',
            tasks: [
              {
                name: 'child',
                taskReferenceName: 'child',
                type: 'SUB_WORKFLOW',
                subWorkflowParam: { name: 'inline', workflowDefinition: '${workflow.input.def}' },
              },
            ],
          },
          {
            name: 'fork_from_data',
            ownerEmail: 'test@example.com',
            tasks: [
              {
                name: 'fork',
                taskReferenceName: 'fork',
                type: 'FORK_JOIN_DYNAMIC',
                dynamicForkTasksParam: 'dynamicTasks',
                dynamicForkTasksInputParamName: 'dynamicTasksInput',
                inputParameters: {
                  dynamicTasks: '${workflow.input.tasks}',
                  dynamicTasksInput: '${workflow.input.inputs}',
                },
              },
              { name: 'join', taskReferenceName: 'join', type: 'JOIN' },
            ],
          },
          httpFlow('template_written', [], {
            uri: '${workflow.input.base}/template',
            method: 'POST',
            headers: {
              Authorization: 'Bearer ${workflow.secrets.SEC_USER}',
              'X-Mixed': 'a ${workflow.secrets.SEC_USER} b ${workflow.input.d}',
              'X-Named': '${workflow.secrets.${workflow.input.name}}',
              'X-Escaped': '$${workflow.secrets.SEC_ADMIN}',
            },
            body: { data: '${workflow.input.d}' },
          }),
        ],
        [{ name: 'w', ownerEmail: 'test@example.com', retryCount: 0, responseTimeoutSeconds: 60 }],
      );
    });

    after(async () => {
      await t.close();
      await target.close();
      await opened.cleanup();
    });

    const ended = (id: string): Promise<any> =>
      eventually(
        async () => {
          const run = await runOf(t.app, id);
          return ['COMPLETED', 'FAILED', 'TERMINATED'].includes(run.status) ? run : undefined;
        },
        `run ${id} to end`,
        30_000,
      );

    void it('the exploit: a run input holding a reference is sent as text (workflow role cannot steal SEC_ADMIN)', async () => {
      const id = await startRun(t.app, 'wfWebhook', {
        input: { callbackUrl: `${target.url}/steal?k=${ADMIN_REF}` },
      });
      const run = await ended(id);
      assert.equal(run.status, 'COMPLETED', JSON.stringify(run.tasks));
      const steal = seen('/steal');
      assert.equal(steal.length, 1);
      assert.equal(decodeURIComponent(steal[0]?.url ?? ''), `/steal?k=${ADMIN_REF}`);
      assert.ok(!received().includes(ADMIN));
    });

    void it("a worker's output holding a reference is sent as text by the next call", async () => {
      const id = await startRun(t.app, 'from_output', { input: { base: target.url } });
      const task = await pollOneTask(t.app, 'w');
      await postResult(t.app, task, 'COMPLETED', { outputData: { x: ADMIN_REF } });
      const run = await ended(id);
      assert.equal(run.status, 'COMPLETED', JSON.stringify(run.tasks));
      const req = seen('/output')[0];
      assert.ok(req);
      assert.equal(req.headers['x-data'], ADMIN_REF);
      assert.deepEqual(JSON.parse(req.body), { x: ADMIN_REF });
      assert.ok(!received().includes(ADMIN));
    });

    void it('a skip body holding a reference is sent as text', async () => {
      const id = await startRun(t.app, 'from_output', { input: { base: `${target.url}/skipped` } });
      const res = await call(t.app, 'PUT', `/api/workflow/${id}/skiptask/w`, {
        taskOutput: { x: ADMIN_REF },
      });
      assert.equal(res.status, 200, res.text);
      const run = await ended(id);
      assert.equal(run.status, 'COMPLETED', JSON.stringify(run.tasks));
      assert.equal(seen('/skipped/output')[0]?.headers['x-data'], ADMIN_REF);
      assert.ok(!received().includes(ADMIN));
    });

    void it('a start input uploaded as an external payload holding a reference is sent as text', async () => {
      const where = await call(
        t.app,
        'GET',
        '/api/tasks/external-storage-location?operation=WRITE&payloadType=WORKFLOW_INPUT',
      );
      assert.equal(where.status, 200, where.text);
      const uri = new URL(where.body.uri as string);
      const put = await t.app.inject({
        method: 'PUT',
        url: `${uri.pathname}${uri.search}`,
        payload: JSON.stringify({ callbackUrl: `${target.url}/external?k=${ADMIN_REF}` }),
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(put.statusCode, 200, put.body);
      const id = await startRun(t.app, 'wfWebhook', { externalInputPayloadStoragePath: where.body.path });
      const run = await ended(id);
      assert.equal(run.status, 'COMPLETED', JSON.stringify(run.tasks));
      assert.equal(decodeURIComponent(seen('/external')[0]?.url ?? ''), `/external?k=${ADMIN_REF}`);
      assert.ok(!received().includes(ADMIN));
    });

    void it("an event's payload holding a reference, started into a run, is sent as text", async () => {
      const sink = 'baton:secret-refs-events';
      await register(t.app, [
        {
          name: 'event_sender',
          ownerEmail: 'test@example.com',
          tasks: [
            {
              name: 'send',
              taskReferenceName: 'send',
              type: 'EVENT',
              sink,
              inputParameters: { v: '${workflow.input.v}' },
            },
          ],
        },
      ]);
      const handler = {
        name: 'secret-refs-start',
        event: sink,
        active: true,
        actions: [
          { action: 'start_workflow', start_workflow: { name: 'wfWebhook', input: { callbackUrl: '${v}' } } },
        ],
      };
      assert.equal((await call(t.app, 'POST', '/api/event', handler)).status, 200);
      // Sent again until a node's handlers include the new one (they refresh on their own).
      const req = await eventually(
        async () => {
          await startRun(t.app, 'event_sender', { input: { v: `${target.url}/event?k=${ADMIN_REF}` } });
          await new Promise((resolve) => setTimeout(resolve, 100));
          return seen('/event')[0];
        },
        'the event to start a call',
        30_000,
      );
      assert.equal(decodeURIComponent(req.url ?? ''), `/event?k=${ADMIN_REF}`);
      assert.ok(!received().includes(ADMIN));
    });

    void it('variables holding a reference are sent as text', async () => {
      const id = await startRun(t.app, 'from_variables', { input: { base: target.url, v: ADMIN_REF } });
      const run = await ended(id);
      assert.equal(run.status, 'COMPLETED', JSON.stringify(run.tasks));
      assert.equal(decodeURIComponent(seen('/variables')[0]?.url ?? ''), `/variables?k=${ADMIN_REF}`);
      assert.ok(!received().includes(ADMIN));
    });

    void it("a signal's body holding a reference is sent as text", async () => {
      const id = await startRun(t.app, 'from_signal', { input: { base: target.url } });
      await eventually(
        async () => ((await runOf(t.app, id)).tasks.length > 0 ? true : undefined),
        'the WAIT task',
        10_000,
      );
      const res = await call(t.app, 'POST', `/api/workflow/${id}/signal`, { x: ADMIN_REF });
      assert.equal(res.status, 200, res.text);
      const run = await ended(id);
      assert.equal(run.status, 'COMPLETED', JSON.stringify(run.tasks));
      const req = seen('/signal')[0];
      assert.ok(req);
      assert.ok(req.body.includes(ADMIN_REF), req.body);
      assert.ok(!received().includes(ADMIN));
    });

    void it('what the template wrote is honoured; data beside it, a computed name and an escape are not', async () => {
      const id = await startRun(t.app, 'template_written', {
        input: { base: target.url, d: ADMIN_REF, name: 'SEC_ADMIN' },
      });
      const run = await ended(id);
      assert.equal(run.status, 'COMPLETED', JSON.stringify(run.tasks));
      const req = seen('/template').at(-1);
      assert.ok(req);
      assert.equal(req.headers.authorization, `Bearer ${USER}`);
      assert.equal(req.headers['x-mixed'], `a ${USER} b ${ADMIN_REF}`);
      assert.equal(req.headers['x-named'], ADMIN_REF);
      assert.equal(req.headers['x-escaped'], ADMIN_REF);
      assert.deepEqual(JSON.parse(req.body), { data: ADMIN_REF });
      // The record keeps the references as text, never a value.
      const task = run.tasks[0];
      assert.equal(task.inputData.http_request.headers.Authorization, 'Bearer ${workflow.secrets.SEC_USER}');
      assert.ok(!JSON.stringify(run).includes(USER));
      assert.ok(!received().includes(ADMIN));
    });

    void it("a rerun's task input holding references is sent as text", async () => {
      const first = await startRun(t.app, 'template_written', {
        input: { base: target.url, d: 'x', name: 'n' },
      });
      const done = await ended(first);
      const res = await call(t.app, 'POST', `/api/workflow/${first}/rerun`, {
        reRunFromTaskId: done.tasks[0].taskId,
        taskInput: {
          http_request: {
            uri: `${target.url}/rerun?k=${ADMIN_REF}`,
            method: 'GET',
            headers: { Authorization: `Bearer ${ADMIN_REF}` },
          },
        },
      });
      assert.equal(res.status, 200, res.text);
      const run = await ended(res.text);
      assert.equal(run.status, 'COMPLETED', JSON.stringify(run.tasks));
      const req = seen('/rerun')[0];
      assert.ok(req, received());
      assert.equal(req.headers.authorization, `Bearer ${ADMIN_REF}`);
      assert.ok(!received().includes(ADMIN));
    });

    void it("a test run's mocks holding references reach nothing and stay text", async () => {
      const before = target.requests.length;
      const res = await call(t.app, 'POST', '/api/workflow/test', {
        workflowDef: httpFlow('tested', [simple('w')], {
          uri: `${target.url}/tested?k=\${w.output.x}`,
          method: 'GET',
        }),
        input: {},
        taskRefToMockOutput: {
          w: [{ status: 'COMPLETED', output: { x: ADMIN_REF } }],
          call: [{ status: 'COMPLETED', output: { echoed: '${w.output.x}' } }],
        },
      });
      assert.equal(res.status, 200, res.text);
      assert.ok(!res.text.includes(ADMIN));
      assert.equal(target.requests.length, before);
    });

    /** A definition as data would carry it: one HTTP task naming the admin secret in its own template. */
    const dataDefinition = (name: string, path: string) => ({
      name,
      version: 1,
      ownerEmail: 'test@example.com',
      tasks: [
        {
          name: `${name}_call`,
          taskReferenceName: 'stolen',
          type: 'HTTP',
          inputParameters: {
            http_request: {
              uri: `${target.url}${path}`,
              method: 'GET',
              headers: { Authorization: `Bearer ${ADMIN_REF}` },
            },
          },
        },
      ],
    });

    void it('a definition given as data (START_WORKFLOW, SUB_WORKFLOW by expression) honours no reference in it', async () => {
      const started = await startRun(t.app, 'starts_from_data', {
        input: { def: dataDefinition('from_start', '/from-start') },
      });
      await ended(started);
      const child = await startRun(t.app, 'child_from_data', {
        input: { def: dataDefinition('from_child', '/from-child') },
      });
      await ended(child);
      for (const path of ['/from-start', '/from-child']) {
        const req = await eventually(() => Promise.resolve(seen(path)[0]), `a call to ${path}`, 30_000);
        assert.equal(req.headers.authorization, `Bearer ${ADMIN_REF}`, path);
      }
      assert.ok(!received().includes(ADMIN));
    });

    void it('a task a dynamic fork made from data honours no reference in it', async () => {
      const http = {
        http_request: {
          uri: `${target.url}/from-fork`,
          method: 'GET',
          headers: { Authorization: `Bearer ${ADMIN_REF}` },
        },
      };
      const id = await startRun(t.app, 'fork_from_data', {
        input: {
          tasks: [{ name: 'forked_http', taskReferenceName: 'dyn', type: 'HTTP', inputParameters: http }],
          inputs: { dyn: http },
        },
      });
      const run = await ended(id);
      assert.equal(run.status, 'COMPLETED', JSON.stringify(run.tasks));
      assert.equal(seen('/from-fork')[0]?.headers.authorization, `Bearer ${ADMIN_REF}`);
      assert.ok(!received().includes(ADMIN));
    });

    void it('references made by a script, put in keys, sent through a HUMAN update or into a child run are sent as text', async () => {
      await register(t.app, [
        httpFlow(
          'from_script',
          [
            {
              name: 'build',
              taskReferenceName: 'build',
              type: 'INLINE',
              inputParameters: {
                evaluatorType: 'graaljs',
                // Assembled at run time: no part of the template is a reference.
                expression: `(function () {
                  var ref = '$' + '{workflow.secrets.' + 'SEC_ADMIN}';
                  var keyed = {}; keyed[ref] = ref;
                  return { s: ref, keyed: keyed };
                })()`,
              },
            },
          ],
          {
            uri: '${workflow.input.base}/script?k=${build.output.result.s}',
            method: 'POST',
            headers: { 'X-Script': '${build.output.result.s}' },
            body: '${build.output.result.keyed}',
          },
        ),
        httpFlow(
          'from_human',
          [{ name: 'human', taskReferenceName: 'human', type: 'HUMAN', inputParameters: {} }],
          {
            uri: '${workflow.input.base}/human?k=${human.output.x}',
            method: 'POST',
            body: '${human.output}',
          },
        ),
        {
          name: 'child_of_registered',
          ownerEmail: 'test@example.com',
          tasks: [
            {
              name: 'child',
              taskReferenceName: 'child',
              type: 'SUB_WORKFLOW',
              subWorkflowParam: { name: 'wfWebhook', version: 1 },
              inputParameters: { callbackUrl: '${workflow.input.cb}' },
            },
          ],
        },
        {
          name: 'starts_registered',
          ownerEmail: 'test@example.com',
          tasks: [
            {
              name: 'start',
              taskReferenceName: 'start',
              type: 'START_WORKFLOW',
              inputParameters: {
                startWorkflow: {
                  name: 'wfWebhook',
                  version: 1,
                  input: { callbackUrl: '${workflow.input.cb}' },
                },
              },
            },
          ],
        },
      ]);

      const scripted = await ended(await startRun(t.app, 'from_script', { input: { base: target.url } }));
      assert.equal(scripted.status, 'COMPLETED', JSON.stringify(scripted.tasks));
      const fromScript = seen('/script')[0];
      assert.ok(fromScript);
      assert.equal(decodeURIComponent(fromScript.url ?? ''), `/script?k=${ADMIN_REF}`);
      assert.equal(fromScript.headers['x-script'], ADMIN_REF);
      assert.deepEqual(JSON.parse(fromScript.body), { [ADMIN_REF]: ADMIN_REF });

      const human = await startRun(t.app, 'from_human', { input: { base: target.url } });
      await eventually(
        async () => ((await runOf(t.app, human)).tasks.length > 0 ? true : undefined),
        'the HUMAN task',
        10_000,
      );
      const update = await call(t.app, 'POST', `/api/tasks/${human}/human/COMPLETED`, {
        x: ADMIN_REF,
        [ADMIN_REF]: 1,
      });
      assert.equal(update.status, 200, update.text);
      assert.equal((await ended(human)).status, 'COMPLETED');
      const fromHuman = seen('/human')[0];
      assert.ok(fromHuman);
      assert.equal(decodeURIComponent(fromHuman.url ?? ''), `/human?k=${ADMIN_REF}`);
      assert.deepEqual(JSON.parse(fromHuman.body), { x: ADMIN_REF, [ADMIN_REF]: 1 });

      for (const [name, path] of [
        ['child_of_registered', '/child'],
        ['starts_registered', '/started'],
      ] as const) {
        const id = await startRun(t.app, name, { input: { cb: `${target.url}${path}?k=${ADMIN_REF}` } });
        assert.equal((await ended(id)).status, 'COMPLETED', name);
        const req = await eventually(() => Promise.resolve(seen(path)[0]), `the call of ${name}`, 30_000);
        assert.equal(decodeURIComponent(req.url ?? ''), `${path}?k=${ADMIN_REF}`, name);
      }
      assert.ok(!received().includes(ADMIN));
    });

    void it('no secret value reached any record of the store', async () => {
      const rows = await everyStoredRow(opened);
      assert.ok(!rows.includes(ADMIN), 'the admin secret is not stored in clear');
      assert.ok(!rows.includes(USER), 'the used secret is not stored in clear');
    });
  });
}

function simple(ref: string): Record<string, unknown> {
  return { name: ref, taskReferenceName: ref, type: 'SIMPLE', inputParameters: {} };
}

function httpFlow(
  name: string,
  first: Array<Record<string, unknown>>,
  request: Record<string, unknown>,
): Record<string, unknown> {
  return {
    name,
    ownerEmail: 'test@example.com',
    tasks: [
      ...first,
      {
        name: `${name}_call`,
        taskReferenceName: 'call',
        type: 'HTTP',
        inputParameters: { http_request: request },
      },
    ],
  };
}
