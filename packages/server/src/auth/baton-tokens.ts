import { randomUUID, type webcrypto } from 'node:crypto';

import type { JsonObject } from '@baton/protocol';
import { exportJWK, generateKeyPair, importJWK, type JWK, jwtVerify, SignJWT } from 'jose';

import type { Clock } from '../clock.js';
import { SecretCipher } from './secret-cipher.js';
import type { Store } from '../store/store.js';
import { explainJoseError } from './token-errors.js';

/** Issuer and audience of the tokens Baton signs for application keys. */
export const BATON_ISSUER = 'urn:baton';
const ALG = 'EdDSA';

interface SigningKey {
  kid: string;
  privateKey: webcrypto.CryptoKey;
  publicKey: webcrypto.CryptoKey;
}

/** The stored key: the private half sealed (`sealedPrivateJwk`), or in clear as older versions wrote it. */
interface StoredKey {
  kid: string;
  publicJwk: JWK;
  privateJwk?: JWK;
  sealedPrivateJwk?: string;
  /** Which BATON_SECRETS_KEY sealed it (a digest, not the key). */
  sealedWith?: string;
}

/**
 * Signs and checks the short-lived tokens `POST /api/token` answers. The key pair is made once
 * for the whole cluster: the first node to start inserts it (a primary key makes one insert
 * win), every node reads the winner's, so a token from one node is good on all of them.
 *
 * With BATON_SECRETS_KEY set, the private key is sealed with it (AES-256-GCM, the record's kid
 * as authenticated data) before it reaches the database, so a copy of the database alone
 * cannot sign a token; a key stored in clear by an older version is sealed in place on start.
 */
export class BatonTokens {
  private key: Promise<SigningKey> | undefined;
  private readonly cipher: SecretCipher | undefined;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly ttlSeconds: number,
    secretsKey?: Buffer,
  ) {
    this.cipher = secretsKey && new SecretCipher(secretsKey);
  }

  async sign(subject: string, keyId: string, ttlSeconds?: number): Promise<string> {
    const key = await this.signingKey();
    const now = Math.floor(this.clock.now() / 1000);
    return new SignJWT({ key: keyId })
      .setProtectedHeader({ alg: ALG, kid: key.kid, typ: 'JWT' })
      .setIssuer(BATON_ISSUER)
      .setAudience(BATON_ISSUER)
      .setSubject(subject)
      .setIssuedAt(now)
      .setExpirationTime(now + Math.min(ttlSeconds ?? this.ttlSeconds, this.ttlSeconds))
      .setJti(randomUUID())
      .sign(key.privateKey);
  }

  /** Answers the access key id the token was made for, or throws a TokenRejected saying why. */
  async verify(token: string, clockSkewSeconds: number): Promise<{ subject: string; keyId: string }> {
    const key = await this.signingKey();
    try {
      const { payload } = await jwtVerify(token, key.publicKey, {
        issuer: BATON_ISSUER,
        audience: BATON_ISSUER,
        algorithms: [ALG],
        clockTolerance: clockSkewSeconds,
        requiredClaims: ['exp', 'sub'],
        currentDate: new Date(this.clock.now()),
      });
      const keyId = typeof payload.key === 'string' ? payload.key : '';
      return { subject: payload.sub ?? '', keyId };
    } catch (err) {
      throw explainJoseError(err);
    }
  }

  /** Loads (or, the first time in the cluster, makes) the signing key. */
  signingKey(): Promise<SigningKey> {
    this.key ??= this.loadOrCreate().catch((err: unknown) => {
      this.key = undefined;
      throw err;
    });
    return this.key;
  }

  private async loadOrCreate(): Promise<SigningKey> {
    let stored = await this.store.read((tx) => tx.getAuthRecord('signing_key', 'current'));
    if (!stored) {
      const pair = await generateKeyPair(ALG, { extractable: true, crv: 'Ed25519' });
      const kid = randomUUID();
      const doc = this.storable(kid, await exportJWK(pair.publicKey), await exportJWK(pair.privateKey));
      const now = this.clock.now();
      await this.store.transaction((tx) =>
        tx.insertAuthRecord({ kind: 'signing_key', id: 'current', doc, createTime: now, updateTime: now }),
      );
      // Another node may have won the insert: everyone uses the stored one.
      stored = await this.store.read((tx) => tx.getAuthRecord('signing_key', 'current'));
    }
    if (!stored) throw new Error('the token signing key could not be stored');
    const doc = stored.doc as unknown as StoredKey;
    const privateJwk = this.privateOf(doc);
    if (doc.privateJwk !== undefined && this.cipher) {
      // Written in clear by an older version: sealed in place (every node that does this
      // writes the same key, so racing nodes agree).
      const sealed = this.storable(doc.kid, doc.publicJwk, doc.privateJwk);
      await this.store.transaction((tx) =>
        tx.updateAuthRecord('signing_key', 'current', sealed, this.clock.now()),
      );
    }
    return {
      kid: doc.kid,
      privateKey: (await importJWK(privateJwk, ALG)) as webcrypto.CryptoKey,
      publicKey: (await importJWK(doc.publicJwk, ALG)) as webcrypto.CryptoKey,
    };
  }

  /** The record to store: the private key sealed when a secrets key is set. */
  private storable(kid: string, publicJwk: JWK, privateJwk: JWK): JsonObject {
    if (!this.cipher) return { kid, publicJwk: { ...publicJwk }, privateJwk: { ...privateJwk } };
    return {
      kid,
      publicJwk: { ...publicJwk },
      sealedPrivateJwk: this.cipher.seal(sealName(kid), JSON.stringify(privateJwk)),
      sealedWith: this.cipher.keyId,
    };
  }

  private privateOf(doc: StoredKey): JWK {
    if (doc.privateJwk !== undefined) return doc.privateJwk;
    if (doc.sealedPrivateJwk === undefined)
      throw new Error('the stored token signing key has no private key');
    if (!this.cipher) {
      throw new Error(
        'the token signing key is sealed with BATON_SECRETS_KEY: set the same BATON_SECRETS_KEY on this node',
      );
    }
    try {
      return JSON.parse(this.cipher.open(sealName(doc.kid), doc.sealedPrivateJwk)) as JWK;
    } catch {
      throw new Error(
        `the token signing key was sealed with another BATON_SECRETS_KEY (key id ${doc.sealedWith ?? 'unknown'}, this node has ${this.cipher.keyId})`,
      );
    }
  }
}

function sealName(kid: string): string {
  return `baton-token-signing-key:${kid}`;
}
