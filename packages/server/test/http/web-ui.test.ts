import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';

import { call } from '../helpers/app.js';
import { appSuite } from '../helpers/app-suite.js';
import { storeCases } from '../helpers/stores.js';

/**
 * The web UI's files served at `/` (BATON_UI_DIR pointed at a stand-in build): files as they
 * are, client routes answered with the app shell, the API's 404 untouched; and a server whose
 * UI was not built still starts and says how to build it.
 */

const sqlite = storeCases().find((c) => c.name === 'sqlite') ?? storeCases()[0]!;

const built = mkdtempSync(path.join(tmpdir(), 'baton-ui-built-'));
mkdirSync(path.join(built, 'assets'));
writeFileSync(path.join(built, 'index.html'), '<!doctype html><title>Baton</title><div id="root"></div>');
writeFileSync(path.join(built, 'assets', 'index-abc123.js'), 'console.log("ui")');
writeFileSync(path.join(built, 'favicon.svg'), '<svg/>');
const empty = mkdtempSync(path.join(tmpdir(), 'baton-ui-empty-'));
after(() => {
  rmSync(built, { recursive: true, force: true });
  rmSync(empty, { recursive: true, force: true });
});

describe('web UI served by the server', () => {
  const t = appSuite(sqlite, { env: { BATON_UI_DIR: built } });

  it('answers the app shell at / and at client routes, never cached', async () => {
    for (const url of ['/', '/runs', '/runs/abc?task=x', '/definitions/order%20flow/edit']) {
      const res = await call(t.app, 'GET', url);
      assert.equal(res.status, 200, url);
      assert.match(String(res.headers['content-type']), /text\/html/, url);
      assert.match(res.text, /<div id="root">/, url);
      assert.equal(res.headers['cache-control'], 'no-cache', url);
    }
  });

  it('sends built files as they are, hashed assets cached for good', async () => {
    const asset = await call(t.app, 'GET', '/assets/index-abc123.js');
    assert.equal(asset.status, 200);
    assert.match(String(asset.headers['content-type']), /javascript/);
    assert.match(String(asset.headers['cache-control']), /immutable/);
    const icon = await call(t.app, 'GET', '/favicon.svg');
    assert.equal(icon.status, 200);
    assert.doesNotMatch(String(icon.headers['cache-control']), /immutable/);
  });

  it('keeps the API, health and metrics as they were', async () => {
    const missing = await call(t.app, 'GET', '/api/no-such-thing');
    assert.equal(missing.status, 404);
    assert.deepEqual(
      { status: missing.body.status, retryable: missing.body.retryable },
      { status: 404, retryable: false },
    );
    assert.equal((await call(t.app, 'GET', '/api')).status, 404);
    assert.equal((await call(t.app, 'GET', '/health')).status, 200);
    assert.equal((await call(t.app, 'GET', '/api/metadata/workflow')).status, 200);
    assert.equal((await call(t.app, 'POST', '/runs', {})).status, 404, 'only GET reaches the shell');
  });

  it('serves nothing outside its directory', async () => {
    for (const url of [
      '/../package.json',
      '/..%2f..%2fpackage.json',
      '/assets/..%2f..%2f..%2fetc%2fpasswd',
      '/%00',
    ]) {
      const res = await call(t.app, 'GET', url);
      assert.ok(res.status === 200 || res.status === 404 || res.status === 400, `${url}: ${res.status}`);
      if (res.status === 200)
        assert.match(res.text, /<div id="root">/, `${url} answers the shell, not a file`);
    }
  });
});

describe('web UI not built', () => {
  const t = appSuite(sqlite, { env: { BATON_UI_DIR: empty } });

  it('still serves the API and says at / how to build the UI', async () => {
    const root = await call(t.app, 'GET', '/');
    assert.equal(root.status, 200);
    assert.match(root.text, /web UI is not built/);
    assert.match(root.text, /npm run build/);
    assert.equal((await call(t.app, 'GET', '/runs')).status, 404);
    assert.equal((await call(t.app, 'GET', '/health')).status, 200);
  });
});

describe('task definition validation', () => {
  const t = appSuite(sqlite);

  it('answers valid for a good definition and names the field of a bad one, storing nothing', async () => {
    const ok = await call(t.app, 'POST', '/api/metadata/taskdefs/validate', {
      name: 'v_task',
      retryCount: 2,
    });
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(ok.body, { valid: true });
    const bad = await call(t.app, 'POST', '/api/metadata/taskdefs/validate', {
      name: 'v_bad',
      retryCount: -1,
    });
    assert.equal(bad.status, 400, bad.text);
    assert.ok(
      bad.body.validationErrors.some((e: any) => String(e.path).includes('retryCount')),
      JSON.stringify(bad.body),
    );
    const noName = await call(t.app, 'POST', '/api/metadata/taskdefs/validate', { retryCount: 1 });
    assert.equal(noName.status, 400);
    assert.equal((await call(t.app, 'GET', '/api/metadata/taskdefs/v_task')).status, 404, 'nothing stored');
  });
});
