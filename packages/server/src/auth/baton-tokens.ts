import { randomUUID, type webcrypto } from 'node:crypto';

import type { JsonObject } from '@baton/protocol';
import { exportJWK, generateKeyPair, importJWK, type JWK, jwtVerify, SignJWT } from 'jose';

import type { Clock } from '../clock.js';
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

/**
 * Signs and checks the short-lived tokens `POST /api/token` answers. The key pair is made once
 * for the whole cluster: the first node to start inserts it (a primary key makes one insert
 * win), every node reads the winner's, so a token from one node is good on all of them.
 */
export class BatonTokens {
  private key: Promise<SigningKey> | undefined;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly ttlSeconds: number,
  ) {}

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
      const doc = {
        kid: randomUUID(),
        privateJwk: (await exportJWK(pair.privateKey)) as JsonObject,
        publicJwk: (await exportJWK(pair.publicKey)) as JsonObject,
      };
      const now = this.clock.now();
      await this.store.transaction((tx) =>
        tx.insertAuthRecord({ kind: 'signing_key', id: 'current', doc, createTime: now, updateTime: now }),
      );
      // Another node may have won the insert: everyone uses the stored one.
      stored = await this.store.read((tx) => tx.getAuthRecord('signing_key', 'current'));
    }
    if (!stored) throw new Error('the token signing key could not be stored');
    const doc = stored.doc as { kid: string; privateJwk: JWK; publicJwk: JWK };
    return {
      kid: doc.kid,
      privateKey: (await importJWK(doc.privateJwk, ALG)) as webcrypto.CryptoKey,
      publicKey: (await importJWK(doc.publicJwk, ALG)) as webcrypto.CryptoKey,
    };
  }
}
