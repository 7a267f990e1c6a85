import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import type { FastifyInstance } from 'fastify';

import { compileOptions } from '../../src/config/options.js';
import { addressForms, canonicalHost } from '../../src/integrations/http/address-forms.js';
import { EgressPolicy } from '../../src/integrations/http/egress-policy.js';
import { appSuite, register } from '../helpers/app-suite.js';
import { eventually, json, startHttpTarget, type HttpTarget } from '../helpers/http-target.js';
import { runOf, startRun } from '../helpers/runs.js';
import { storeCases } from '../helpers/stores.js';

/**
 * Every spelling of a denied address is denied: with loopback denied, the unspecified
 * addresses (`0.0.0.0`, `[::]`) and every other form of 127.0.0.1 (decimal, octal, hex,
 * trailing dot, IPv4-mapped IPv6) are refused before a connection, and NAT64 / mapped forms of
 * link-local are on the default list.
 */

const LOOPBACK_DENY = ['127.0.0.0/8', '::1/128', 'localhost'];

/** Host spellings that all reach this machine (port added by the test). */
const LOCAL_FORMS = [
  '0.0.0.0',
  '0',
  '0.0.0.0.',
  '[::ffff:0:0]',
  '[::]',
  '[::ffff:0.0.0.0]',
  '[::ffff:127.0.0.1]',
  '[::ffff:7f00:1]',
  '[::127.0.0.1]',
  '[0:0:0:0:0:0:0:1]',
  '127.1',
  '127.0.0.1.',
  '2130706433',
  '017700000001',
  '0x7f000001',
  '0x7f.0.0.1',
  'LOCALHOST',
  'localhost.',
];

void describe('egress address forms', () => {
  void it('brings every form of an address to its canonical text, with the IPv4 address it embeds', () => {
    assert.equal(canonicalHost('0'), '0.0.0.0');
    assert.equal(canonicalHost('0.0.0.0.'), '0.0.0.0');
    assert.equal(canonicalHost('0x7f.1'), '127.0.0.1');
    assert.equal(canonicalHost('2130706433'), '127.0.0.1');
    assert.equal(canonicalHost('[::FFFF:127.0.0.1]'), '::ffff:7f00:1');
    assert.equal(canonicalHost('Example.COM.'), 'example.com');
    assert.deepEqual(addressForms('::ffff:0:0'), ['::ffff:0:0', '0.0.0.0']);
    assert.deepEqual(addressForms('64:ff9b::169.254.169.254'), ['64:ff9b::a9fe:a9fe', '169.254.169.254']);
    assert.deepEqual(addressForms('::a9fe:a9fe'), ['::a9fe:a9fe', '169.254.169.254']);
    assert.deepEqual(addressForms('2001:db8::1'), ['2001:db8::1']);
  });

  void it('denies the unspecified addresses with loopback, in every form, before and after DNS', () => {
    const policy = new EgressPolicy({ deny: LOOPBACK_DENY });
    for (const form of LOCAL_FORMS) {
      assert.equal(policy.checkHost(form).allowed, false, `${form} is refused`);
      const bare = form.replace(/^\[|\]$/g, '');
      if (/localhost/i.test(bare)) continue;
      assert.equal(policy.checkAddress('some.name', bare).allowed, false, `${bare} resolved is refused`);
    }
    assert.equal(policy.checkHost('10.0.0.1').allowed, true);
    // Without loopback on the list, the unspecified addresses are not added.
    assert.equal(new EgressPolicy({ deny: ['10.0.0.0/8'] }).checkHost('0.0.0.0').allowed, true);
  });

  void it('puts NAT64, IPv4-compatible and IPv4-mapped forms of link-local on the default list', () => {
    const defaults = compileOptions({});
    const policy = new EgressPolicy({ deny: defaults.httpDeny, allow: defaults.httpAllow });
    for (const form of [
      '[64:ff9b::a9fe:a9fe]',
      '[64:ff9b::169.254.169.254]',
      '[::a9fe:a9fe]',
      '[::ffff:169.254.169.254]',
      '[::ffff:a9fe:a9fe]',
      '[64:ff9b:1::a9fe:a9fe]',
      '2852039166',
      '0xa9.0xfe.0xa9.0xfe',
    ]) {
      assert.equal(policy.checkHost(form).allowed, false, `${form} is refused`);
    }
    for (const cidr of ['64:ff9b::a9fe:0/112', '::ffff:a9fe:0/112', '::a9fe:0/112'])
      assert.ok(defaults.httpDeny.includes(cidr), `${cidr} is on the default list`);
    assert.equal(policy.checkHost('[64:ff9b::808:808]').allowed, true, 'NAT64 of a public address passes');
  });
});

async function runTo(app: FastifyInstance, id: string): Promise<any> {
  return eventually(
    async () => {
      const run = await runOf(app, id);
      return ['COMPLETED', 'FAILED'].includes(run.status) ? run : undefined;
    },
    `run ${id} to end`,
    30_000,
  );
}

for (const storeCase of storeCases()) {
  void describe(`egress deny list against address forms on ${storeCase.name}`, () => {
    const suite = appSuite(storeCase, { env: { BATON_HTTP_DENY: LOOPBACK_DENY.join(',') } });
    let target: HttpTarget;
    before(async () => {
      target = await startHttpTarget((_req, res) => json(res, 200, { reached: true }));
    });
    after(async () => target.close());

    void it('refuses every form of this machine (the exploit: 0.0.0.0, 0, 0.0.0.0., [::ffff:0:0]) with no connection', async () => {
      const { app } = suite;
      const before = target.connections();
      await register(app, [
        {
          name: 'egress_forms',
          ownerEmail: 'test@example.com',
          tasks: [
            {
              name: 'egress_forms_call',
              taskReferenceName: 'call',
              type: 'HTTP',
              inputParameters: { http_request: { uri: '${workflow.input.uri}', method: 'GET' } },
            },
          ],
        },
      ]);
      for (const form of LOCAL_FORMS) {
        const id = await startRun(app, 'egress_forms', { input: { uri: `http://${form}:${target.port}/` } });
        const run = await runTo(app, id);
        assert.equal(run.status, 'FAILED', `${form}: ${JSON.stringify(run.tasks[0])}`);
        assert.match(run.tasks[0].reasonForIncompletion, /denied by BATON_HTTP_DENY rule/, form);
      }
      assert.equal(target.connections() - before, 0, 'no connection reached the listener');
    });
  });
}
