import assert from 'node:assert/strict';
import { createPublicKey } from 'node:crypto';
import { describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';

import { decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT } from 'jose';

import { startOidcProvider } from '../helpers/oidc-provider.js';
import { storeCases } from '../helpers/stores.js';
import { AUDIENCE, authSuite, CLIENTS, send } from './auth-fixture.js';

function b64(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** Polls until `check` holds (the machine is loaded: bounds are generous, never a fixed sleep). */
async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return;
    await delay(100);
  }
  assert.fail(`${what}: not within ${timeoutMs} ms`);
}

for (const storeCase of storeCases()) {
  void describe(`auth: bad tokens and key rotation on ${storeCase.name}`, () => {
    const t = authSuite(storeCase);

    /** A forged token must be refused with this reason, and the write it carried must not happen. */
    async function refusedAndNothingChanged(token: string, reason: RegExp, name: string): Promise<void> {
      const res = await send(t.app, 'POST', '/api/metadata/taskdefs', {
        token,
        body: [{ name, responseTimeoutSeconds: 10 }],
      });
      assert.equal(res.status, 401, `${name}: ${res.text}`);
      assert.equal(res.body.code, 'UNAUTHENTICATED');
      assert.match(res.body.message, reason);
      assert.match(String(res.headers['www-authenticate']), /^Bearer realm="baton", error="invalid_token"/);
      const admin = await t.token('c-admin');
      assert.equal(
        (await send(t.app, 'GET', `/api/metadata/taskdefs/${name}`, { token: admin })).status,
        404,
      );
    }

    void it('accepts a good token from the provider', async () => {
      const token = await t.token('c-metadata');
      const res = await send(t.app, 'POST', '/api/metadata/taskdefs', {
        token,
        body: [{ name: 'good_def', responseTimeoutSeconds: 10 }],
      });
      assert.equal(res.status, 200, res.text);
    });

    void it('refuses an expired token', async () => {
      const token = await t.token('c-short');
      const exp = decodeJwt(token).exp ?? 0;
      // Accepted while valid (and so remembered as checked)…
      const early = await send(t.app, 'GET', '/api/metadata/taskdefs', { token });
      if (Date.now() / 1000 < exp) assert.equal(early.status, 200, early.text);
      // …and refused past exp all the same (clock skew is 0 in this suite).
      await eventually('the token expires', () => Promise.resolve(Date.now() / 1000 > exp + 1));
      await refusedAndNothingChanged(token, /token expired/, 'expired_def');
    });

    void it('refuses a token for another audience', async () => {
      const token = await t.idp.token('c-admin', 'https://other.test/api');
      await refusedAndNothingChanged(token, /wrong audience/, 'audience_def');
    });

    void it('refuses a token of another issuer', async () => {
      const other = await startOidcProvider({ audience: AUDIENCE, clients: CLIENTS });
      try {
        await refusedAndNothingChanged(await other.token('c-admin'), /wrong issuer/, 'issuer_def');
      } finally {
        await other.stop();
      }
    });

    void it('refuses a token re-signed with another key under the same kid', async () => {
      const good = await t.token('c-admin');
      const header = decodeProtectedHeader(good);
      const { privateKey } = await generateKeyPair('RS256');
      const forged = await new SignJWT(decodeJwt(good))
        .setProtectedHeader({ alg: 'RS256', kid: header.kid ?? '', typ: header.typ ?? 'JWT' })
        .sign(privateKey);
      await refusedAndNothingChanged(forged, /bad signature/, 'resigned_def');
      // The payload changed under the original signature: refused as well.
      const [h, , s] = good.split('.');
      const tampered = `${h}.${b64({ ...decodeJwt(good), roles: ['admin', 'metadata'], sub: 'mallory' })}.${s}`;
      await refusedAndNothingChanged(tampered, /bad signature/, 'tampered_def');
    });

    void it('refuses alg none and the HMAC-with-public-key confusion', async () => {
      const good = await t.token('c-admin');
      const header = decodeProtectedHeader(good);
      const none = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(decodeJwt(good))}.`;
      await refusedAndNothingChanged(none, /algorithm not allowed|malformed/, 'none_def');
      // The provider's public key, as published in its JWKS, used as an HMAC secret.
      const jwks = (await (await fetch(`${t.idp.issuer}/jwks`)).json()) as {
        keys: Array<Record<string, string>>;
      };
      const jwk = jwks.keys.find((k) => k.kid === header.kid);
      assert.ok(jwk, 'the provider publishes its key');
      const pem = createPublicKey({ key: jwk, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
      const hs = await new SignJWT(decodeJwt(good))
        .setProtectedHeader({ alg: 'HS256', kid: header.kid ?? '', typ: 'JWT' })
        .sign(Buffer.from(pem));
      await refusedAndNothingChanged(hs, /algorithm not allowed/, 'confusion_def');
    });

    void it('refuses garbage and says why', async () => {
      await refusedAndNothingChanged('not-a-jwt', /malformed/, 'garbage_def');
    });

    void it('follows a key rotation at the provider without a restart', async () => {
      const before = await t.idp.token('c-admin');
      assert.equal((await send(t.app, 'GET', '/api/admin/config', { token: before })).status, 200);
      // Signed with the old key, and never shown to Baton before the rotation.
      const unseen = await t.idp.token('c-admin');
      const oldKid = t.idp.signingKid();
      await t.idp.rotateKeys();
      assert.notEqual(t.idp.signingKid(), oldKid);
      const after = await t.idp.token('c-admin');
      assert.equal(decodeProtectedHeader(after).kid, t.idp.signingKid());
      // The unknown kid makes Baton fetch the JWKS again (at most once per short cool-down).
      await eventually('a token signed with the new key is accepted', async () => {
        return (await send(t.app, 'GET', '/api/admin/config', { token: after })).status === 200;
      });
      // The provider no longer publishes the old key, so its tokens stop working (one checked
      // before may be trusted for up to a minute more: Baton remembers checked tokens).
      const old = await send(t.app, 'GET', '/api/admin/config', { token: unseen });
      assert.equal(old.status, 401);
      assert.match(old.body.message, /no signing key/);
    });
  });
}
