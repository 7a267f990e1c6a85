import { createHmac, timingSafeEqual } from 'node:crypto';
import { readOrCreateKeyFile } from '../key-file.js';

import type { PayloadOperation } from './payload-paths.js';

export type SignatureCheck = 'valid' | 'expired' | 'invalid';

/**
 * HMAC-SHA256 signatures of Baton-served payload URLs (the filesystem store has no server of
 * its own): the signature covers the operation, the path and the expiry, so a URL cannot be
 * reused for another path, turned from a download into an upload, or extended.
 */
export class PayloadUrlSigner {
  constructor(private readonly key: Buffer) {}

  sign(operation: PayloadOperation, blobPath: string, expiresAtSeconds: number): string {
    return createHmac('sha256', this.key)
      .update(`${operation}\n${blobPath}\n${expiresAtSeconds}`)
      .digest('base64url');
  }

  check(
    operation: PayloadOperation,
    blobPath: string,
    expiresAtSeconds: number,
    signature: string,
    nowMs: number,
  ): SignatureCheck {
    const expected = Buffer.from(this.sign(operation, blobPath, expiresAtSeconds));
    const given = Buffer.from(signature);
    // Checked first so a tampered expiry is "invalid", not "expired".
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return 'invalid';
    return expiresAtSeconds * 1000 < nowMs ? 'expired' : 'valid';
  }
}

/**
 * The signing key: the configured one, else a random key kept in the data dir (made on first
 * use), so URLs stay valid across restarts of a node. Nodes sharing a blob directory must share
 * the key (BATON_PAYLOAD_SIGNING_KEY).
 */
export function loadSigningKey(configured: string | undefined, dataDir: string): Buffer {
  if (configured !== undefined) return Buffer.from(configured, 'utf8');
  return readOrCreateKeyFile(dataDir, 'blobs-signing.key').key;
}
