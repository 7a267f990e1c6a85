import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from 'jose';
import { pino } from 'pino';

import { systemClock } from '../../src/clock.js';
import { AuthConfigError, compileAuthOptions } from '../../src/config/auth-options.js';
import { compileOptions } from '../../src/config/options.js';
import { type BatonServer, createServer } from '../../src/server.js';
import { everyStoredRow } from '../helpers/store-text.js';
import { type OpenedStore, storeCases } from '../helpers/stores.js';
import { authSuite, BOOTSTRAP, send } from './auth-fixture.js';

/**
 * The token-signing private key is sealed with BATON_SECRETS_KEY in the database (a key an
 * older version stored in clear is sealed in place on start), so a copy of the database alone
 * does not sign tokens; and a token made to live longer than
 * BATON_AUTH_MAX_TOKEN_LIFETIME_SECONDS is refused even with a good signature.
 */

const SECRETS_KEY = Buffer.alloc(32, 5).toString('base64');
const OTHER_KEY = Buffer.alloc(32, 6).toString('base64');

async function start(
  opened: OpenedStore,
  dataDir: string,
  env: Record<string, string>,
): Promise<BatonServer> {
  const server = await createServer({
    options: compileOptions({
      BATON_DATA_DIR: dataDir,
      BATON_LOG_LEVEL: 'silent',
      BATON_AUTH: 'on',
      BATON_AUTH_BOOTSTRAP_KEY_ID: BOOTSTRAP.keyId,
      BATON_AUTH_BOOTSTRAP_KEY_SECRET: BOOTSTRAP.keySecret,
      ...env,
    }),
    store: opened.store,
    clock: systemClock,
    logger: pino({ level: 'silent' }),
    timerLoop: false,
  });
  await server.app.ready();
  return server;
}

/** A token as `POST /api/token` makes them, signed with `jwk`, living `lifetime` seconds. */
async function forge(jwk: JWK, kid: string, lifetime: number): Promise<string> {
  const key = await importJWK(jwk, 'EdDSA');
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ key: BOOTSTRAP.keyId })
    .setProtectedHeader({ alg: 'EdDSA', kid, typ: 'JWT' })
    .setIssuer('urn:baton')
    .setAudience('urn:baton')
    .setSubject('forged')
    .setIssuedAt(now)
    .setExpirationTime(now + lifetime)
    .sign(key);
}

void describe('token lifetime setting', () => {
  void it('defaults to 24 h, and may not be shorter than the lifetime Baton gives its own tokens', () => {
    assert.equal(compileAuthOptions({}, '127.0.0.1').maxTokenLifetimeSeconds, 86_400);
    assert.throws(
      () =>
        compileAuthOptions(
          {
            BATON_AUTH_TOKEN_TTL_SECONDS: '7200',
            BATON_AUTH_MAX_TOKEN_LIFETIME_SECONDS: '3600',
          },
          '127.0.0.1',
        ),
      AuthConfigError,
    );
  });
});

for (const storeCase of storeCases()) {
  void describe(`token signing key sealed, token lifetime bounded on ${storeCase.name}`, () => {
    let opened: OpenedStore;
    let dataDir: string;
    let server: BatonServer | undefined;
    let clearKey: { kid: string; privateJwk: JWK; publicJwk: JWK };

    before(async () => {
      opened = await storeCase.open();
      dataDir = mkdtempSync(path.join(tmpdir(), 'baton-signing-'));
      // As an older version left it: the key pair in clear in auth_records.
      const pair = await generateKeyPair('EdDSA', { extractable: true, crv: 'Ed25519' });
      clearKey = {
        kid: 'old-clear-kid',
        privateJwk: await exportJWK(pair.privateKey),
        publicJwk: await exportJWK(pair.publicKey),
      };
      const now = Date.now();
      await opened.store.transaction((tx) =>
        tx.insertAuthRecord({
          kind: 'signing_key',
          id: 'current',
          doc: JSON.parse(JSON.stringify(clearKey)),
          createTime: now,
          updateTime: now,
        }),
      );
      server = await start(opened, dataDir, { BATON_SECRETS_KEY: SECRETS_KEY });
    });

    after(async () => {
      await server?.stop();
      await opened.cleanup();
      rmSync(dataDir, { recursive: true, force: true });
    });

    void it('a key stored in clear is sealed in place on start (same key), and no row holds it in clear', async () => {
      const stored = await opened.store.read((tx) => tx.getAuthRecord('signing_key', 'current'));
      assert.ok(stored);
      const doc = stored.doc as Record<string, unknown>;
      assert.equal(doc.kid, clearKey.kid);
      assert.equal(doc.privateJwk, undefined);
      assert.equal(typeof doc.sealedPrivateJwk, 'string');
      const rows = await everyStoredRow(opened);
      assert.ok(!rows.includes(String(clearKey.privateJwk.d)), 'the private key is in no row');
      // Tokens the node signs now verify, with the same key as before.
      const res = await send(server!.app, 'POST', '/api/token', { body: BOOTSTRAP });
      assert.equal(res.status, 200, res.text);
      const ok = await send(server!.app, 'GET', '/api/metadata/taskdefs', { token: res.body.token });
      assert.equal(ok.status, 200, ok.text);
    });

    void it('a copy of the database does not yield a usable signing key (no secrets key, or another one)', async () => {
      const copies: Array<Record<string, string>> = [{}, { BATON_SECRETS_KEY: OTHER_KEY }];
      for (const env of copies) {
        const dir = mkdtempSync(path.join(tmpdir(), 'baton-signing-copy-'));
        try {
          await assert.rejects(start(opened, dir, env), /sealed with/);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }
    });

    void it('a forged one-year admin token is refused; one within the lifetime is taken', async () => {
      const longLived = await forge(clearKey.privateJwk, clearKey.kid, 365 * 86_400);
      const refused = await send(server!.app, 'GET', '/api/metadata/taskdefs', { token: longLived });
      assert.equal(refused.status, 401, refused.text);
      assert.match(refused.text, /token lifetime exceeds 86400 seconds/);
      const justOver = await forge(clearKey.privateJwk, clearKey.kid, 86_401);
      assert.equal(
        (await send(server!.app, 'GET', '/api/metadata/taskdefs', { token: justOver })).status,
        401,
      );
      const withinLimit = await forge(clearKey.privateJwk, clearKey.kid, 3600);
      assert.equal(
        (await send(server!.app, 'GET', '/api/metadata/taskdefs', { token: withinLimit })).status,
        200,
      );
    });
  });
}

for (const storeCase of storeCases()) {
  void describe(`identity-provider tokens and the lifetime bound on ${storeCase.name}`, () => {
    const t = authSuite(storeCase);

    void it("refuses a provider's token made to live longer than the bound, takes a shorter one", async () => {
      // c-long lives 25 h, c-admin 300 s; the default bound is 24 h.
      const long = await send(t.app, 'GET', '/api/metadata/taskdefs', { token: await t.token('c-long') });
      assert.equal(long.status, 401, long.text);
      assert.match(long.text, /token lifetime exceeds 86400 seconds/);
      const short = await send(t.app, 'GET', '/api/metadata/taskdefs', { token: await t.token('c-admin') });
      assert.equal(short.status, 200, short.text);
    });
  });
}
