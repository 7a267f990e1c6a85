import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ConfigError, compileOptions } from '../../src/config/options.js';
import { EgressPolicy } from '../../src/integrations/http/egress-policy.js';

void describe('egress policy', () => {
  const defaults = compileOptions({});

  void it('denies link-local addresses by default (cloud metadata), IPv4, IPv6 and IPv4-mapped', () => {
    const policy = new EgressPolicy({ deny: defaults.httpDeny, allow: defaults.httpAllow });
    assert.deepEqual(policy.checkHost('169.254.169.254'), {
      allowed: false,
      rule: 'BATON_HTTP_DENY rule 169.254.0.0/16',
    });
    assert.equal(policy.checkHost('[fe80::1]').allowed, false);
    assert.equal(policy.checkAddress('metadata.internal', '::ffff:169.254.169.254').allowed, false);
    assert.equal(policy.checkHost('127.0.0.1').allowed, true);
    assert.equal(policy.checkAddress('example.com', '93.184.216.34').allowed, true);
    assert.equal(defaults.httpAllow, undefined);
  });

  void it('matches host names exactly or by a *. suffix, before DNS', () => {
    const policy = new EgressPolicy({ deny: ['internal.example.com', '*.corp.example'] });
    assert.equal(policy.checkHost('internal.example.com').allowed, false);
    assert.equal(policy.checkHost('INTERNAL.example.com.'.toLowerCase()).allowed, false);
    assert.equal(policy.checkHost('db.corp.example').allowed, false);
    assert.equal(policy.checkHost('corp.example').allowed, true);
    assert.equal(policy.checkHost('example.com').allowed, true);
  });

  void it('with allow rules, only they pass; an allow rule wins over a deny rule', () => {
    const policy = new EgressPolicy({ deny: ['10.0.0.0/8'], allow: ['10.1.2.0/24', 'api.example.com'] });
    assert.equal(policy.checkAddress('x', '10.1.2.3').allowed, true);
    assert.deepEqual(policy.checkAddress('x', '10.9.9.9'), {
      allowed: false,
      rule: 'BATON_HTTP_DENY rule 10.0.0.0/8',
    });
    assert.deepEqual(policy.checkAddress('x', '8.8.8.8'), {
      allowed: false,
      rule: 'BATON_HTTP_ALLOW (no rule matches)',
    });
    assert.equal(policy.checkAddress('api.example.com', '10.200.0.1').allowed, true);
  });

  void it('refuses malformed rules at start, naming the setting', () => {
    assert.throws(() => compileOptions({ BATON_HTTP_DENY: '10.0.0.0/33' }), ConfigError);
    assert.throws(
      () => compileOptions({ BATON_HTTP_ALLOW: 'not a host!' }),
      /BATON_HTTP_ALLOW: 'not a host!'/,
    );
    assert.deepEqual(compileOptions({ BATON_HTTP_DENY: '' }).httpDeny, []);
    assert.deepEqual(compileOptions({ BATON_HTTP_ALLOW: ' 127.0.0.1/32 , localhost ' }).httpAllow, [
      '127.0.0.1/32',
      'localhost',
    ]);
    assert.throws(
      () => compileOptions({ BATON_SYSTEM_TASK_CONCURRENCY: '0' }),
      /BATON_SYSTEM_TASK_CONCURRENCY/,
    );
  });
});
