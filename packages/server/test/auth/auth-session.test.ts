import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { storeCases } from '../helpers/stores.js';
import { authSuite, BOOTSTRAP, send } from './auth-fixture.js';

/**
 * `GET /api/auth/session`, what the web UI asks first: open, it says whether auth is on and how
 * to sign in; with a token it checks it and names the caller's roles.
 */
const [storeCase] = storeCases();
if (storeCase) {
  void describe('auth: the session endpoint with auth on', () => {
    const t = authSuite(storeCase, {
      BATON_AUTH_UI_CLIENT_ID: 'baton-ui',
      BATON_AUTH_UI_SCOPE: 'openid api',
    });

    void it('answers without a token whether auth is on, the issuer and the role of each group, and no caller', async () => {
      const res = await send(t.app, 'GET', '/api/auth/session');
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.authEnabled, true);
      assert.equal(res.body.issuer, t.idp.issuer);
      assert.deepEqual(res.body.uiClient, { clientId: 'baton-ui', scope: 'openid api' });
      assert.deepEqual(res.body.groupRoles, {
        metadata: 'metadata',
        workflow: 'workflow',
        task: 'task',
        event: 'event',
        admin: 'admin',
      });
      assert.equal(res.body.caller, undefined);
    });

    void it('names the caller and the roles of an application key token and of an identity-provider token', async () => {
      const admin = (await send(t.app, 'POST', '/api/token', { body: BOOTSTRAP })).body.token as string;
      const app = await send(t.app, 'GET', '/api/auth/session', { token: admin });
      assert.equal(app.status, 200, app.text);
      assert.equal(app.body.caller.via, 'application');
      assert.match(app.body.caller.subject, /^app:/);
      assert.deepEqual(app.body.caller.roles, ['admin']);
      assert.ok(!app.text.includes(admin), 'the token is not echoed');

      const oidc = await send(t.app, 'GET', '/api/auth/session', {
        token: await t.token('c-workflow'),
        header: 'x-authorization',
      });
      assert.equal(oidc.status, 200, oidc.text);
      assert.deepEqual(oidc.body.caller, { subject: 'c-workflow', via: 'oidc', roles: ['workflow'] });
    });

    void it('refuses a bad token with 401 saying why, as every route does', async () => {
      const res = await send(t.app, 'GET', '/api/auth/session', { token: 'not.a.token' });
      assert.equal(res.status, 401);
      assert.match(res.body.message, /malformed token/);
      assert.match(String(res.headers['www-authenticate']), /invalid_token/);
    });
  });

  void describe('auth: the session endpoint with auth off', () => {
    const t = authSuite(storeCase, { BATON_AUTH: 'none' });

    void it('says auth is off and the caller is anonymous, whatever token is sent', async () => {
      for (const token of [undefined, 'anything']) {
        const res = await send(t.app, 'GET', '/api/auth/session', token === undefined ? {} : { token });
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.authEnabled, false);
        assert.deepEqual(res.body.caller, { subject: 'anonymous', via: 'anonymous', roles: [] });
      }
    });
  });
}
