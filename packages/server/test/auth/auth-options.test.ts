import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { compileOptions, ConfigError, publicSettings } from '../../src/config/options.js';
import { identityOf, rolesAt } from '../../src/auth/identity.js';
import { decide } from '../../src/auth/access.js';

const ROLES = { metadata: 'metadata', workflow: 'workflow', task: 'task', event: 'event', admin: 'admin' };

void describe('auth settings', () => {
  void it('is off on loopback with no settings, on with any auth setting, off when set to none', () => {
    assert.equal(compileOptions({}).auth.mode, 'off');
    assert.equal(compileOptions({ BATON_HOST: 'localhost' }).auth.mode, 'off');
    assert.equal(compileOptions({ BATON_HOST: '::1' }).auth.mode, 'off');
    assert.equal(compileOptions({ BATON_AUTH: 'on' }).auth.mode, 'on');
    assert.equal(
      compileOptions({ BATON_AUTH_ISSUER: 'https://idp.test', BATON_AUTH_AUDIENCE: 'baton' }).auth.mode,
      'on',
    );
    assert.equal(compileOptions({ BATON_HOST: '0.0.0.0', BATON_AUTH: 'none' }).auth.mode, 'off');
    assert.equal(
      compileOptions({
        BATON_HOST: '0.0.0.0',
        BATON_AUTH_BOOTSTRAP_KEY_ID: 'admin-key-1',
        BATON_AUTH_BOOTSTRAP_KEY_SECRET: 'a-long-enough-secret',
      }).auth.mode,
      'on',
    );
  });

  void it("takes the web UI's client at the identity provider only with an issuer, and checks its scope", () => {
    const idp = { BATON_AUTH_ISSUER: 'https://idp.test', BATON_AUTH_AUDIENCE: 'baton' };
    assert.equal(compileOptions(idp).auth.ui, undefined);
    assert.deepEqual(compileOptions({ ...idp, BATON_AUTH_UI_CLIENT_ID: 'baton-ui' }).auth.ui, {
      clientId: 'baton-ui',
      scope: 'openid',
    });
    assert.deepEqual(
      compileOptions({ ...idp, BATON_AUTH_UI_CLIENT_ID: 'baton-ui', BATON_AUTH_UI_SCOPE: 'openid api' }).auth
        .ui,
      { clientId: 'baton-ui', scope: 'openid api' },
    );
    assert.throws(
      () => compileOptions({ BATON_AUTH: 'on', BATON_AUTH_UI_CLIENT_ID: 'baton-ui' }),
      (err: Error) => err instanceof ConfigError && /needs BATON_AUTH_ISSUER/.test(err.message),
    );
    for (const bad of [{ BATON_AUTH_UI_CLIENT_ID: 'has space' }, { BATON_AUTH_UI_SCOPE: 'openid  api' }]) {
      assert.throws(
        () => compileOptions({ ...idp, BATON_AUTH_UI_CLIENT_ID: 'baton-ui', ...bad }),
        (err: Error) => err instanceof ConfigError && /BATON_AUTH_UI_/.test(err.message),
      );
    }
  });

  void it('refuses to serve beyond loopback with no auth settings, saying how to fix it', () => {
    for (const host of ['0.0.0.0', '10.1.2.3', '::', 'baton.internal']) {
      assert.throws(
        () => compileOptions({ BATON_HOST: host }),
        (err: Error) =>
          err instanceof ConfigError &&
          /beyond loopback/.test(err.message) &&
          /BATON_AUTH_ISSUER/.test(err.message) &&
          /BATON_AUTH_BOOTSTRAP_KEY_ID/.test(err.message) &&
          /BATON_AUTH=none/.test(err.message),
      );
    }
  });

  void it('refuses incomplete or bad settings with a message naming the setting', () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ BATON_AUTH: 'maybe' }, /BATON_AUTH must be/],
      [{ BATON_AUTH_ISSUER: 'https://idp.test' }, /BATON_AUTH_AUDIENCE is required/],
      [{ BATON_AUTH_ISSUER: 'not a url', BATON_AUTH_AUDIENCE: 'a' }, /BATON_AUTH_ISSUER must be/],
      [
        { BATON_AUTH_ISSUER: 'ftp://idp.test', BATON_AUTH_AUDIENCE: 'a' },
        /BATON_AUTH_ISSUER must be an http/,
      ],
      [{ BATON_AUTH_JWKS_URL: 'https://idp.test/jwks', BATON_AUTH_AUDIENCE: 'a' }, /needs BATON_AUTH_ISSUER/],
      [{ BATON_AUTH_BOOTSTRAP_KEY_ID: 'admin-key-1' }, /go together/],
      [
        { BATON_AUTH_BOOTSTRAP_KEY_ID: 'bad id!', BATON_AUTH_BOOTSTRAP_KEY_SECRET: 'x'.repeat(20) },
        /KEY_ID must be/,
      ],
      [
        { BATON_AUTH_BOOTSTRAP_KEY_ID: 'admin-key-1', BATON_AUTH_BOOTSTRAP_KEY_SECRET: 'short' },
        /KEY_SECRET must be/,
      ],
      [
        { BATON_AUTH_CLOCK_SKEW_SECONDS: '9999' },
        /BATON_AUTH_CLOCK_SKEW_SECONDS must be an integer from 0 to 300/,
      ],
      [{ BATON_AUTH_TOKEN_TTL_SECONDS: '5' }, /BATON_AUTH_TOKEN_TTL_SECONDS/],
      [{ BATON_AUTH_ROLE_TASK: 'worker:x' }, /BATON_AUTH_ROLE_TASK must be/],
      [{ BATON_AUTH_ROLE_TASK: 'admin' }, /five different roles/],
      [{ BATON_AUTH_ROLES_CLAIM: 'a..b' }, /BATON_AUTH_ROLES_CLAIM/],
      [{ BATON_METRICS_AUTH: 'public' }, /BATON_METRICS_AUTH/],
      [{ BATON_RATE_LIMIT_MAX: '-1' }, /BATON_RATE_LIMIT_MAX/],
      [{ BATON_CORS_ORIGINS: 'ui.example.com' }, /BATON_CORS_ORIGINS/],
    ];
    for (const [env, message] of cases) {
      assert.throws(() => compileOptions(env), message, JSON.stringify(env));
    }
  });

  void it('never shows the bootstrap secret', () => {
    const raw = {
      BATON_AUTH_BOOTSTRAP_KEY_ID: 'admin-key-1',
      BATON_AUTH_BOOTSTRAP_KEY_SECRET: 'a-long-enough-secret',
    };
    const shown = publicSettings(compileOptions(raw), raw);
    assert.equal(shown.BATON_AUTH_BOOTSTRAP_KEY_SECRET, '(set)');
    assert.equal(shown.auth, 'on');
    assert.ok(!JSON.stringify(shown).includes('a-long-enough-secret'));
  });
});

void describe('roles', () => {
  void it('reads roles from a claim, a dotted path, a claim named with dots, or a space-separated string', () => {
    assert.deepEqual(rolesAt({ roles: ['a', 'b', 3] }, 'roles'), ['a', 'b']);
    assert.deepEqual(rolesAt({ realm_access: { roles: ['x'] } }, 'realm_access.roles'), ['x']);
    assert.deepEqual(rolesAt({ 'https://baton/roles': ['y'] }, 'https://baton/roles'), ['y']);
    assert.deepEqual(rolesAt({ scope: 'metadata worker:a' }, 'scope'), ['metadata', 'worker:a']);
    assert.deepEqual(rolesAt({ realm_access: ['x'] }, 'realm_access.roles'), []);
    assert.deepEqual(rolesAt({}, 'roles'), []);
  });

  void it('admin may do everything; a group role its group; worker roles the worker routes only', () => {
    const admin = identityOf('a', 'oidc', ['admin']);
    const worker = identityOf('w', 'oidc', ['worker:charge']);
    const none = identityOf('n', 'oidc', []);
    for (const group of ['metadata', 'workflow', 'task', 'event', 'admin'] as const) {
      assert.deepEqual(decide(admin, group, ROLES, false), { allowed: true, workerOnly: false });
      assert.deepEqual(decide(none, group, ROLES, true), { allowed: false, missingRole: group });
    }
    assert.deepEqual(decide(worker, 'task', ROLES, true), { allowed: true, workerOnly: true });
    assert.deepEqual(decide(worker, 'task', ROLES, false), { allowed: false, missingRole: 'task' });
    assert.deepEqual(decide(worker, 'metadata', ROLES, true), { allowed: false, missingRole: 'metadata' });
    assert.equal(worker.workerTypes.has('charge'), true);
    assert.equal(identityOf('x', 'oidc', ['worker:*']).allWorkerTypes, true);
    assert.equal(identityOf('x', 'oidc', ['worker:']).workerTypes.size, 0);
  });
});
