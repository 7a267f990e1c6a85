import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { SecretMasker } from '../../src/integrations/secrets/secret-masker.js';
import { call, type TestApp, testApp } from '../helpers/app.js';
import { register } from '../helpers/app-suite.js';
import { eventually, json, startHttpTarget, type HttpTarget } from '../helpers/http-target.js';
import { runOf, startRun } from '../helpers/runs.js';
import { everyStoredRow } from '../helpers/store-text.js';
import { type OpenedStore, storeCases } from '../helpers/stores.js';

/**
 * A secret is masked in every encoding Baton itself writes it in, before anything is stored
 * or answered: JSON string escaping, percent-encoding (`encodeURIComponent`, form encoding with
 * `+`, the URL parser's own), a lower-cased host name (a DNS error), base64 (Basic). The value
 * holds quotes, a slash, non-ASCII, `&`, `=`, `+` and `%`.
 */

const KEY = Buffer.alloc(32, 9).toString('base64');
const SECRET = 'Sp3c "q"/ü&x=1+%';
const HOST_SECRET = 'ZQ7-Secret-V4lue-K9X';

/** Every text the value was written as by something that is not Baton (what a target echoes). */
function echoedForms(value: string): Record<string, string> {
  return {
    json: JSON.stringify({ 'x-token': value }),
    component: encodeURIComponent(value),
    form: new URLSearchParams({ t: value }).toString(),
    uri: encodeURI(value),
    base64: Buffer.from(value).toString('base64'),
    basic: Buffer.from(`svc:${value}`).toString('base64'),
    lower: value.toLowerCase(),
    upper: value.toUpperCase(),
  };
}

void describe('secret masker encodings', () => {
  void it('masks the value in every encoding, case-insensitively', () => {
    const masker = new SecretMasker([SECRET, HOST_SECRET]);
    for (const [form, text] of Object.entries(echoedForms(SECRET))) {
      if (form === 'basic') continue; // a `user:` prefix is a derived value the handler hides by name
      const masked = masker.text(`before ${text} after`);
      assert.ok(!/sp3c/i.test(masked), `${form}: ${masked}`);
    }
    assert.equal(
      masker.text(`getaddrinfo ENOTFOUND ${HOST_SECRET.toLowerCase()}.invalid`),
      'getaddrinfo ENOTFOUND ***.invalid',
    );
    assert.equal(masker.text('Basic ' + Buffer.from(`:${SECRET}`).toString('base64')), 'Basic ***');
    assert.deepEqual(masker.json({ [`k ${SECRET}`]: [`"${JSON.stringify(SECRET).slice(1, -1)}"`] }), {
      'k ***': ['"***"'],
    });
  });
});

for (const storeCase of storeCases()) {
  void describe(`secret masking in every encoding on ${storeCase.name}`, () => {
    let opened: OpenedStore;
    let t: TestApp;
    let target: HttpTarget;

    before(async () => {
      opened = await storeCase.open();
      // `*.invalid` denied: a call to a host named by a secret fails before DNS, with the host
      // (lower-cased by the URL parser) in its reason, as a resolver's ENOTFOUND would have it.
      t = await testApp(opened.store, {
        env: { BATON_SECRETS_KEY: KEY, BATON_HTTP_DENY: '169.254.0.0/16,fe80::/10,*.invalid' },
      });
      target = await startHttpTarget((req, res) => {
        const token = String(req.headers['x-token'] ?? '');
        // Fails with a body that echoes the secret in every form: the reason holds it all.
        json(res, 500, {
          headers: req.headers,
          url: req.url,
          ...echoedForms(token),
        });
      });
      const res = await call(t.app, 'PUT', '/api/secrets/TOK', { value: SECRET });
      assert.equal(res.status, 201, res.text);
      assert.equal((await call(t.app, 'PUT', '/api/secrets/HOSTSEC', { value: HOST_SECRET })).status, 201);
      await register(
        t.app,
        [
          {
            name: 'masked_host',
            ownerEmail: 'test@example.com',
            tasks: [
              {
                name: 'masked_host_call',
                taskReferenceName: 'call',
                type: 'HTTP',
                inputParameters: {
                  http_request: { uri: 'http://${workflow.secrets.HOSTSEC}.invalid/x', method: 'GET' },
                },
              },
            ],
          },
          {
            name: 'masked_echo',
            ownerEmail: 'test@example.com',
            tasks: [
              {
                name: 'masked_echo_call',
                taskReferenceName: 'call',
                type: 'HTTP',
                inputParameters: {
                  http_request: {
                    uri: `${target.url}/echo?t=\${workflow.secrets.TOK}`,
                    method: 'POST',
                    headers: { 'x-token': '${workflow.secrets.TOK}' },
                    body: { token: '${workflow.secrets.TOK}' },
                  },
                },
              },
            ],
          },
        ],
        [
          { name: 'masked_echo_call', ownerEmail: 'test@example.com', retryCount: 0 },
          { name: 'masked_host_call', ownerEmail: 'test@example.com', retryCount: 0 },
        ],
      );
    });

    after(async () => {
      await t.close();
      await target.close();
      await opened.cleanup();
    });

    void it('a failure reason echoing the secret JSON-escaped, percent- and form-encoded, base64 holds none of it', async () => {
      const id = await startRun(t.app, 'masked_echo', {});
      const run = await eventually(
        async () => {
          const r = await runOf(t.app, id);
          return r.status === 'FAILED' ? r : undefined;
        },
        'the run to fail',
        30_000,
      );
      assert.equal(target.requests.at(-1)?.headers['x-token'], SECRET, 'the target got the value');
      const reason: string = run.tasks.at(-1).reasonForIncompletion;
      assert.match(reason, /HTTP 500/);
      assert.match(reason, /\*\*\*/);
      const answers = [
        JSON.stringify(run),
        (await call(t.app, 'GET', `/api/workflow/${id}?includeTasks=true`)).text,
        (await call(t.app, 'GET', `/api/tasks/${run.tasks[0].taskId}`)).text,
        (await call(t.app, 'GET', `/api/tasks/${run.tasks[0].taskId}/log`)).text,
      ];
      for (const answer of answers) assert.ok(!/sp3c/i.test(answer), `an answer holds the secret: ${answer}`);
      for (const fragment of ['Sp3c', 'sp3c', 'Sp3c%20', 'U3AzYy']) {
        const search = await call(t.app, 'GET', `/api/tasks/search?freeText=${encodeURIComponent(fragment)}`);
        assert.equal(search.status, 200, search.text);
        assert.equal(search.body.totalHits, 0, `freeText=${fragment} finds nothing`);
      }
      const rows = await everyStoredRow(opened);
      assert.ok(!/sp3c/i.test(rows), 'no row of the database holds the secret in any form');
      assert.ok(!rows.includes('U3AzYy'), 'nor its base64');
    });

    void it('a host named by a secret, lower-cased in the failure reason, is masked', async () => {
      const id = await startRun(t.app, 'masked_host', {});
      const run = await eventually(
        async () => {
          const r = await runOf(t.app, id);
          return r.status === 'FAILED' ? r : undefined;
        },
        'the run to fail',
        30_000,
      );
      const reason: string = run.tasks.at(-1).reasonForIncompletion;
      assert.match(reason, /egress to \*\*\*\.invalid denied/);
      assert.ok(!JSON.stringify(run).toLowerCase().includes(HOST_SECRET.toLowerCase()));
      const search = await call(t.app, 'GET', `/api/tasks/search?freeText=zq7-secret`);
      assert.equal(search.body.totalHits, 0);
      // The resolver's own message has the same shape.
      const masker = new SecretMasker([HOST_SECRET]);
      const message = `Failed to invoke HTTP task due to: getaddrinfo ENOTFOUND ${HOST_SECRET.toLowerCase()}.invalid`;
      assert.equal(
        masker.text(message),
        'Failed to invoke HTTP task due to: getaddrinfo ENOTFOUND ***.invalid',
      );
      const rows = await everyStoredRow(opened);
      assert.ok(!rows.toLowerCase().includes(HOST_SECRET.toLowerCase()));
    });
  });
}
