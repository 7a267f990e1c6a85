import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { BatonClient } from '@baton/sdk';

import { runCli, startBaton, type BatonProcess } from './helpers/cli.js';

const ADMIN = { keyId: 'cli-test-admin', keySecret: 'cli-test-admin-secret-0123' };

// The CLI against Baton's own authentication: credentials come from the environment
// (BATON_TOKEN, or BATON_KEY_ID + BATON_KEY_SECRET exchanged at POST /api/token).
describe('baton credentials from the environment (real server, auth on)', () => {
  let baton: BatonProcess;
  let designer: { id: string; secret: string };

  before(async () => {
    baton = await startBaton({
      env: { BATON_AUTH_BOOTSTRAP_KEY_ID: ADMIN.keyId, BATON_AUTH_BOOTSTRAP_KEY_SECRET: ADMIN.keySecret },
    });
    // An application that may edit definitions but not see runs.
    const admin = new BatonClient({ baseUrl: baton.url, credentials: ADMIN });
    const app = await admin.send<{ id: string }>('POST', '/api/applications', () =>
      admin.api.POST('/api/applications', { body: { name: 'designers' } }),
    );
    await admin.send('POST', '/api/applications/{id}/roles/{role}', () =>
      admin.api.POST('/api/applications/{applicationId}/roles/{role}', {
        params: { path: { applicationId: app.id, role: 'metadata' } },
        parseAs: 'text',
      }),
    );
    designer = await admin.send('POST', '/api/applications/{id}/accessKeys', () =>
      admin.api.POST('/api/applications/{id}/accessKeys', { params: { path: { id: app.id } } }),
    );
  });
  after(async () => {
    await baton?.stop();
  });

  it('BATON_KEY_ID and BATON_KEY_SECRET are exchanged for a token: baton runs answers', async () => {
    const r = await runCli(['runs', '--json'], {
      env: { BATON_URL: baton.url, BATON_KEY_ID: ADMIN.keyId, BATON_KEY_SECRET: ADMIN.keySecret },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotThrow(() => JSON.parse(r.stdout) as unknown);
  });

  it('a token the server does not accept: its reason, exit 1', async () => {
    const r = await runCli(['runs', '--server', baton.url], { env: { BATON_TOKEN: 'not-a-token' } });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /\(HTTP 401\): malformed token/);
    assert.match(
      r.stderr,
      /the credentials in BATON_TOKEN or BATON_KEY_ID \/ BATON_KEY_SECRET were not accepted/,
    );
  });

  it('BATON_TOKEN is sent as a bearer token', async () => {
    const res = await fetch(`${baton.url}/api/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    const { token } = (await res.json()) as { token: string };
    const r = await runCli(['queues', '--server', baton.url], { env: { BATON_TOKEN: token } });
    assert.equal(r.code, 0, r.stderr);
  });

  it("without credentials: the server's 401 message, which settings to give, exit 1", async () => {
    const r = await runCli(['runs', '--server', baton.url]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /the server refused GET .*\/api\/workflow\/search(\?\S*)? \(HTTP 401\): \S+/);
    assert.match(r.stderr, /set BATON_TOKEN, or BATON_KEY_ID and BATON_KEY_SECRET/);
  });

  it('a key without the role: the server names the role it needs, exit 1', async () => {
    const r = await runCli(['runs'], {
      env: { BATON_URL: baton.url, BATON_KEY_ID: designer.id, BATON_KEY_SECRET: designer.secret },
    });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /\(HTTP 403\): Forbidden: GET \/api\/workflow\/search needs the role 'workflow'/);
    assert.match(r.stderr, /lack that role/);
  });

  it('apply looks before it changes: a key that may not read schedules changes nothing', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'baton-apply-auth-'));
    try {
      writeFileSync(path.join(dir, 'a-task.json'), JSON.stringify({ name: 'audited' }));
      writeFileSync(
        path.join(dir, 'b-schedule.json'),
        JSON.stringify({ name: 'hourly', cronExpression: '@hourly', startWorkflowRequest: { name: 'x' } }),
      );
      const r = await runCli(['apply', '-f', dir], {
        env: { BATON_URL: baton.url, BATON_KEY_ID: designer.id, BATON_KEY_SECRET: designer.secret },
      });
      assert.equal(r.code, 1);
      assert.match(r.stderr, /\(HTTP 403\): Forbidden: GET \/api\/schedule\/:name needs the role 'event'/);
      const admin = new BatonClient({ baseUrl: baton.url, credentials: ADMIN });
      assert.equal(await admin.getTaskDef('audited'), undefined);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a wrong secret is refused naming the key, never the secret', async () => {
    const r = await runCli(['runs'], {
      env: { BATON_URL: baton.url, BATON_KEY_ID: ADMIN.keyId, BATON_KEY_SECRET: 'not-the-secret-at-all' },
    });
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      new RegExp(
        `refused POST .*/api/token \\(HTTP 401\\): application key ${ADMIN.keyId} refused: invalid key id or secret`,
      ),
    );
    assert.match(r.stderr, /check BATON_KEY_ID and BATON_KEY_SECRET/);
    assert.doesNotMatch(r.stderr + r.stdout, /not-the-secret-at-all/);
  });

  it('--version prints the version', async () => {
    const r = await runCli(['--version']);
    assert.equal(r.code, 0);
    assert.match(r.stdout.trim(), /^\d+\.\d+\.\d+$/);
  });

  it('half an application key is a usage error', async () => {
    const r = await runCli(['queues', '--server', baton.url], { env: { BATON_KEY_ID: 'app-1' } });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /BATON_KEY_ID and BATON_KEY_SECRET go together/);
  });
});
