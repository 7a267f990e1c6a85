import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Seals secret values with AES-256-GCM under BATON_SECRETS_KEY. A sealed value is base64 of
 * IV (12 bytes) + auth tag (16 bytes) + ciphertext. The secret's name is the additional
 * authenticated data, so a sealed value copied onto another name does not open.
 */
export class SecretCipher {
  /** A digest of the key (not the key): says which key sealed a row, so a key change is reported clearly. */
  readonly keyId: string;

  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('the secrets key must be 32 bytes');
    this.keyId = createHash('sha256').update('baton-secrets-key-id').update(key).digest('hex').slice(0, 16);
  }

  seal(name: string, value: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(name, 'utf8'));
    const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }

  /** Opens a sealed value; throws when it was sealed under another key, another name, or was altered. */
  open(name: string, sealed: string): string {
    const raw = Buffer.from(sealed, 'base64');
    if (raw.length < 28) throw new Error('sealed value is too short');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(name, 'utf8'));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}
