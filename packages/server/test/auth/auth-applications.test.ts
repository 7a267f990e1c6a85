import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';

import { decodeJwt } from 'jose';

import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { call, testApp } from '../helpers/app.js';
import { storeCases } from '../helpers/stores.js';
import { authSuite, BOOTSTRAP, send } from './auth-fixture.js';

async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return;
    await delay(100);
  }
  assert.fail(`${what}: not within ${timeoutMs} ms`);
}

for (const storeCase of storeCases()) {
  void describe(`auth: applications, access keys and who did what on ${storeCase.name}`, () => {
    const t = authSuite(storeCase);

    async function tokenFor(
      keyId: string,
      keySecret: string,
    ): Promise<{ status: number; token?: string; body: any }> {
      const res = await send(t.app, 'POST', '/api/token', { body: { keyId, keySecret } });
      return {
        status: res.status,
        body: res.body,
        ...(res.status === 200 && { token: res.body.token as string }),
      };
    }

    void it('the bootstrap key (set at start) is an admin from the first request', async () => {
      const { status, token } = await tokenFor(BOOTSTRAP.keyId, BOOTSTRAP.keySecret);
      assert.equal(status, 200);
      const apps = await send(t.app, 'GET', '/api/applications', { token, header: 'x-authorization' });
      assert.equal(apps.status, 200, apps.text);
      assert.ok(
        apps.body.some(
          (a: { id: string; roles: string[] }) => a.id === 'bootstrap-admin' && a.roles.includes('admin'),
        ),
      );
      const wrong = await tokenFor(BOOTSTRAP.keyId, 'not-the-secret-at-all');
      assert.equal(wrong.status, 401);
      assert.equal(wrong.body.message, 'invalid key id or secret');
      assert.equal((await tokenFor('no-such-key', 'whatever-secret')).status, 401);
    });

    void it("manages applications and keys with Orkes's paths and shapes; the secret is shown once and stored hashed", async () => {
      const admin = (await tokenFor(BOOTSTRAP.keyId, BOOTSTRAP.keySecret)).token;
      const created = await send(t.app, 'POST', '/api/applications', {
        token: admin,
        body: { name: 'billing-workers' },
      });
      assert.equal(created.status, 200, created.text);
      const app = created.body;
      assert.equal(app.name, 'billing-workers');
      assert.equal(app.createdBy, 'app:bootstrap-admin');
      assert.ok(app.id && app.createTime && app.updateTime);
      const renamed = await send(t.app, 'PUT', `/api/applications/${app.id}`, {
        token: admin,
        body: { name: 'billing' },
      });
      assert.equal(renamed.body.name, 'billing');
      assert.equal(
        (await send(t.app, 'POST', `/api/applications/${app.id}/roles/worker:${'bill'}`, { token: admin }))
          .status,
        200,
      );
      const bad = await send(t.app, 'POST', `/api/applications/${app.id}/roles/superuser`, { token: admin });
      assert.equal(bad.status, 400);
      const key = await send(t.app, 'POST', `/api/applications/${app.id}/accessKeys`, { token: admin });
      assert.equal(key.status, 200);
      assert.ok(
        typeof key.body.id === 'string' &&
          typeof key.body.secret === 'string' &&
          key.body.secret.length >= 32,
      );
      const keys = await send(t.app, 'GET', `/api/applications/${app.id}/accessKeys`, { token: admin });
      assert.deepEqual(Object.keys(keys.body[0]).sort(), ['createdAt', 'id', 'status']);
      assert.equal(keys.body[0].status, 'ACTIVE');
      assert.equal(
        (await send(t.app, 'GET', `/api/applications/key/${key.body.id}`, { token: admin })).body.id,
        app.id,
      );
      // Only a slow hash is stored: the secret appears nowhere in the store.
      const stored = await t.store.read((tx) => tx.getAuthRecord('access_key', key.body.id));
      assert.ok(stored);
      assert.ok(!JSON.stringify(stored).includes(key.body.secret));
      assert.match(stored.doc.secretHash as string, /^scrypt\$/);
      // Tags, Orkes's way.
      await send(t.app, 'PUT', `/api/applications/${app.id}/tags`, {
        token: admin,
        body: [{ key: 'team', value: 'billing' }],
      });
      assert.deepEqual(
        (await send(t.app, 'GET', `/api/applications/${app.id}/tags`, { token: admin })).body,
        [{ key: 'team', value: 'billing' }],
      );

      // The key's token carries the application's roles: a worker of `bill`, nothing else.
      const worker = await tokenFor(key.body.id, key.body.secret);
      assert.equal(worker.status, 200);
      const poll = await send(t.app, 'GET', '/api/tasks/poll/bill', {
        token: worker.token,
        header: 'x-authorization',
      });
      assert.equal(poll.status, 204, poll.text);
      assert.equal((await send(t.app, 'GET', '/api/tasks/poll/other', { token: worker.token })).status, 403);
      assert.equal((await send(t.app, 'GET', '/api/applications', { token: worker.token })).status, 403);

      // Turned inactive: no new token, and the tokens it has stop working within seconds.
      const toggled = await send(
        t.app,
        'POST',
        `/api/applications/${app.id}/accessKeys/${key.body.id}/status`,
        {
          token: admin,
        },
      );
      assert.equal(toggled.body.status, 'INACTIVE');
      assert.equal((await tokenFor(key.body.id, key.body.secret)).status, 401);
      await eventually('the inactive key stops working', async () => {
        return (await send(t.app, 'GET', '/api/tasks/poll/bill', { token: worker.token })).status === 401;
      });
      // Deleting the application removes its keys.
      assert.equal(
        (await send(t.app, 'DELETE', `/api/applications/${app.id}`, { token: admin })).status,
        200,
      );
      assert.equal((await send(t.app, 'GET', `/api/applications/${app.id}`, { token: admin })).status, 404);
      assert.equal(await t.store.read((tx) => tx.getAuthRecord('access_key', key.body.id)), undefined);
    });

    void it('stamps createdBy / updatedBy on definitions and records operator actions on the run', async () => {
      const meta = await t.token('c-metadata');
      const taskDefs = await send(t.app, 'POST', '/api/metadata/taskdefs', {
        token: meta,
        body: workerTaskDefs(['who_type']).map((d) => ({ ...d, createdBy: 'forged' })),
      });
      assert.equal(taskDefs.status, 200, taskDefs.text);
      const def = workflowDef('who_flow', [{ name: 'who_type', taskReferenceName: 'who', type: 'SIMPLE' }]);
      assert.equal(
        (await send(t.app, 'POST', '/api/metadata/workflow', { token: meta, body: def })).status,
        200,
      );
      const admin = await t.token('c-admin');
      const changed = await send(t.app, 'PUT', '/api/metadata/taskdefs', {
        token: admin,
        body: { ...workerTaskDefs(['who_type'])[0], description: 'changed' },
      });
      assert.equal(changed.status, 200, changed.text);
      const td = await send(t.app, 'GET', '/api/metadata/taskdefs/who_type', { token: meta });
      const sub = decodeJwt(meta).sub;
      const adminSub = decodeJwt(admin).sub;
      assert.equal(td.body.createdBy, sub);
      assert.equal(td.body.updatedBy, adminSub);
      const wd = await send(t.app, 'GET', '/api/metadata/workflow/who_flow', { token: meta });
      assert.equal(wd.body.createdBy, sub);

      // Schedules and event handlers are stamped the same way; what the caller wrote is ignored.
      const events = await t.token('c-event');
      const eventSub = decodeJwt(events).sub;
      const schedule = {
        name: 'who_schedule',
        cronExpression: '0 0 * * * *',
        startWorkflowRequest: { name: 'who_flow' },
        createdBy: 'forged',
      };
      assert.equal(
        (await send(t.app, 'POST', '/api/schedule', { token: events, body: schedule })).status,
        200,
      );
      assert.equal(
        (await send(t.app, 'PUT', '/api/schedule', { token: admin, body: { ...schedule, description: 'x' } }))
          .status,
        200,
      );
      const sc = await send(t.app, 'GET', '/api/schedule/who_schedule', { token: events });
      assert.deepEqual([sc.body.createdBy, sc.body.updatedBy], [eventSub, adminSub]);
      const handler = {
        name: 'who_handler',
        event: 'baton:who_queue',
        actions: [{ action: 'start_workflow', start_workflow: { name: 'who_flow' } }],
        active: false,
        createdBy: 'forged',
      };
      assert.equal((await send(t.app, 'POST', '/api/event', { token: events, body: handler })).status, 200);
      const created = (await send(t.app, 'GET', '/api/event', { token: events })).body.find(
        (h: { name: string }) => h.name === 'who_handler',
      );
      assert.deepEqual([created.createdBy, created.updatedBy], [eventSub, eventSub]);
      assert.equal((await send(t.app, 'PUT', '/api/event', { token: admin, body: handler })).status, 200);
      const replaced = (await send(t.app, 'GET', '/api/event', { token: events })).body.find(
        (h: { name: string }) => h.name === 'who_handler',
      );
      assert.deepEqual([replaced.createdBy, replaced.updatedBy], [eventSub, adminSub]);

      const operator = await t.token('c-workflow');
      const runId = (await send(t.app, 'POST', '/api/workflow/who_flow', { token: operator, body: {} })).text;
      assert.equal(
        (await send(t.app, 'PUT', `/api/workflow/${runId}/pause`, { token: operator })).status,
        200,
      );
      assert.equal((await send(t.app, 'PUT', `/api/workflow/${runId}/resume`, { token: admin })).status, 200);
      assert.equal((await send(t.app, 'PUT', `/api/workflow/${runId}/resume`, { token: admin })).status, 409);
      const terminated = await send(t.app, 'DELETE', `/api/workflow/${runId}?reason=enough`, {
        token: operator,
      });
      assert.equal(terminated.status, 200, terminated.text);
      const run = await send(t.app, 'GET', `/api/workflow/${runId}`, { token: operator });
      const actions = run.body.operatorActions as Array<{
        action: string;
        by: string;
        at: number;
        detail?: { reason?: string };
      }>;
      assert.deepEqual(
        actions.map((a) => [a.action, a.by]),
        [
          ['pause', decodeJwt(operator).sub],
          ['resume', adminSub],
          ['terminate', decodeJwt(operator).sub],
        ],
      );
      assert.equal(actions[2]?.detail?.reason, 'enough');
      assert.ok(actions.every((a) => typeof a.at === 'number' && a.at > 0));
      // Retry answers the new run; recorded on the run it was asked of.
      const retried = await send(t.app, 'POST', `/api/workflow/${runId}/retry`, { token: operator });
      assert.equal(retried.status, 200, retried.text);
      const after = await send(t.app, 'GET', `/api/workflow/${runId}`, { token: operator });
      assert.equal(after.body.operatorActions.at(-1).action, 'retry');

      // Bulk actions are recorded on each run they succeeded for; skip names the task.
      const runs = [
        (await send(t.app, 'POST', '/api/workflow/who_flow', { token: operator, body: {} })).text,
        (await send(t.app, 'POST', '/api/workflow/who_flow', { token: operator, body: {} })).text,
      ];
      const bulk = await send(t.app, 'PUT', '/api/workflow/bulk/pause', {
        token: admin,
        body: [...runs, 'no-such-run'],
      });
      assert.equal(bulk.status, 200, bulk.text);
      for (const id of runs) {
        const got = await send(t.app, 'GET', `/api/workflow/${id}`, { token: operator });
        assert.deepEqual(
          got.body.operatorActions.map((a: { action: string; by: string }) => [a.action, a.by]),
          [['pause', adminSub]],
        );
      }
      assert.equal(
        (await send(t.app, 'PUT', `/api/workflow/${runs[0]}/resume`, { token: admin })).status,
        200,
      );
      const skip = await send(t.app, 'PUT', `/api/workflow/${runs[0]}/skiptask/who`, {
        token: operator,
        body: {},
      });
      assert.equal(skip.status, 200, skip.text);
      const skipped = await send(t.app, 'GET', `/api/workflow/${runs[0]}`, { token: operator });
      const last = skipped.body.operatorActions.at(-1);
      assert.equal(last.action, 'skip');
      assert.equal(last.detail.taskReferenceName, 'who');
    });
  });
}

void describe('auth: rate limits, CORS and auth off', () => {
  const [storeCase] = storeCases();
  if (!storeCase) return;

  void describe('per identity', () => {
    const t = authSuite(storeCase, {
      BATON_RATE_LIMIT_MAX: '3',
      BATON_RATE_LIMIT_WINDOW_MS: '60000',
      BATON_CORS_ORIGINS: 'https://ui.baton.test',
    });

    void it('answers 429 with Retry-After past the limit, counted per identity', async () => {
      const one = await t.token('c-metadata');
      for (let i = 0; i < 3; i++) {
        assert.equal((await send(t.app, 'GET', '/api/metadata/taskdefs', { token: one })).status, 200);
      }
      const limited = await send(t.app, 'GET', '/api/metadata/taskdefs', { token: one });
      assert.equal(limited.status, 429);
      assert.equal(limited.body.code, 'RATE_LIMITED');
      assert.ok(Number(limited.headers['retry-after']) > 0);
      const other = await t.token('c-admin');
      assert.equal((await send(t.app, 'GET', '/api/metadata/taskdefs', { token: other })).status, 200);
    });

    void it('allows the configured CORS origin only', async () => {
      const ok = await t.app.inject({
        method: 'OPTIONS',
        url: '/api/metadata/taskdefs',
        headers: { origin: 'https://ui.baton.test', 'access-control-request-method': 'GET' },
      });
      assert.equal(ok.headers['access-control-allow-origin'], 'https://ui.baton.test');
      const no = await t.app.inject({
        method: 'OPTIONS',
        url: '/api/metadata/taskdefs',
        headers: { origin: 'https://evil.test', 'access-control-request-method': 'GET' },
      });
      assert.equal(no.headers['access-control-allow-origin'], undefined);
    });
  });

  void it('with auth off (loopback, no settings) everything is open and /api/token answers 404', async () => {
    const opened = await storeCase.open();
    const off = await testApp(opened.store);
    try {
      assert.equal(off.server.auth.options.mode, 'off');
      assert.equal((await call(off.app, 'POST', '/api/token', { keyId: 'a', keySecret: 'b' })).status, 404);
      assert.equal((await call(off.app, 'GET', '/api/applications')).status, 200);
      assert.equal((await call(off.app, 'GET', '/api/admin/config')).status, 200);
    } finally {
      await off.close();
      await opened.cleanup();
    }
  });
});
