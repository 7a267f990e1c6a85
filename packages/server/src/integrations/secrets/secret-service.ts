import type { JsonValue } from '@baton/protocol';

import type { Clock } from '../../clock.js';
import { fail } from '../../errors.js';
import type { Store } from '../../store/store.js';
import { SecretCipher } from '../../auth/secret-cipher.js';
import { SecretMasker } from './secret-masker.js';
import { isSecretName } from './secret-refs.js';

/** What the API shows of a secret: never its value. */
export interface SecretInfo {
  name: string;
  createTime: number;
  updateTime: number;
}

export const SECRETS_NOT_CONFIGURED =
  'Secrets are not configured on this server: set BATON_SECRETS_KEY to 32 random bytes (base64 or 64 hex digits, e.g. `openssl rand -base64 32`) on every node and restart';

/** How many opened values a node remembers for masking. */
const MAX_REMEMBERED = 10_000;

/** A call that needs secrets cannot be made: the task fails with this message (never a value). */
export class SecretUnavailableError extends Error {
  override name = 'SecretUnavailableError';
}

/**
 * The secret store: values sealed before they are written (secret-cipher.ts), opened only to
 * make a call. Without BATON_SECRETS_KEY, names can still be listed and removed but nothing can
 * be stored or resolved, and the routes say how to set the key.
 */
export class SecretService {
  private readonly cipher: SecretCipher | undefined;
  /**
   * Values this node opened for calls, most recent last: `mask` hides them in what a call
   * answered (reasons, logs), which the executor masks after the call. Bounded; a value is
   * remembered again each time it is opened.
   */
  private readonly opened = new Map<string, true>();
  private masker: SecretMasker | undefined;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    key: Buffer | undefined,
  ) {
    this.cipher = key && new SecretCipher(key);
  }

  get configured(): boolean {
    return this.cipher !== undefined;
  }

  private requireCipher(): SecretCipher {
    // 409, not 503: the server is up and will refuse the same way until an operator sets the key,
    // so a client must not retry it as a passing outage.
    if (!this.cipher) throw fail('SECRETS_NOT_CONFIGURED', { detail: SECRETS_NOT_CONFIGURED });
    return this.cipher;
  }

  private static checkName(name: string): void {
    if (!isSecretName(name)) {
      throw fail('SECRET_NAME_INVALID', { name: name.slice(0, 200) }, [
        {
          path: 'params.name',
          message: 'must be 1 to 128 letters, digits, _ or -',
          invalidValue: name.slice(0, 200),
        },
      ]);
    }
  }

  /** Stores (or replaces) a secret; answers whether it was new. */
  async put(name: string, value: string): Promise<{ created: boolean; info: SecretInfo }> {
    SecretService.checkName(name);
    const cipher = this.requireCipher();
    const now = this.clock.now();
    const sealed = cipher.seal(name, value);
    return this.store.transaction(async (tx) => {
      const existing = (await tx.getSecrets([name]))[0];
      await tx.putSecret({ name, sealed, keyId: cipher.keyId, createTime: now, updateTime: now });
      return {
        created: existing === undefined,
        info: { name, createTime: existing?.createTime ?? now, updateTime: now },
      };
    });
  }

  list(): Promise<SecretInfo[]> {
    return this.store.read((tx) => tx.listSecrets());
  }

  async describe(name: string): Promise<SecretInfo> {
    SecretService.checkName(name);
    const found = (await this.store.read((tx) => tx.getSecrets([name])))[0];
    if (!found) throw fail('SECRET_NOT_FOUND', { name });
    return { name: found.name, createTime: found.createTime, updateTime: found.updateTime };
  }

  async exists(name: string): Promise<boolean> {
    if (!isSecretName(name)) return false;
    return (await this.store.read((tx) => tx.getSecrets([name]))).length > 0;
  }

  async delete(name: string): Promise<void> {
    SecretService.checkName(name);
    if (!(await this.store.transaction((tx) => tx.deleteSecret(name))))
      throw fail('SECRET_NOT_FOUND', { name });
  }

  /**
   * The plain values of these secrets, to make a call with. Throws SecretUnavailableError
   * naming what is missing (a name, the key), never a value.
   */
  async values(names: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    if (names.length === 0) return out;
    if (!this.cipher) throw new SecretUnavailableError(SECRETS_NOT_CONFIGURED);
    const cipher = this.cipher;
    const rows = await this.store.read((tx) => tx.getSecrets(names));
    for (const row of rows) {
      if (row.keyId !== cipher.keyId) {
        throw new SecretUnavailableError(
          `Secret '${row.name}' was stored under another BATON_SECRETS_KEY; store it again under the current key`,
        );
      }
      try {
        out.set(row.name, cipher.open(row.name, row.sealed));
      } catch {
        throw new SecretUnavailableError(
          `Secret '${row.name}' could not be opened (its stored value is damaged)`,
        );
      }
    }
    this.remember(out.values());
    const missing = names.filter((n) => !out.has(n));
    if (missing.length > 0) {
      throw new SecretUnavailableError(
        `Secret${missing.length > 1 ? 's' : ''} not found: ${missing.join(', ')} (PUT /api/secrets/{name} to add)`,
      );
    }
    return out;
  }

  private remember(values: Iterable<string>): void {
    let changed = false;
    for (const value of values) {
      if (!this.opened.delete(value)) changed = true;
      this.opened.set(value, true);
    }
    while (this.opened.size > MAX_REMEMBERED) {
      const oldest = this.opened.keys().next().value;
      if (oldest === undefined) break;
      this.opened.delete(oldest);
      changed = true;
    }
    // The masker (a pattern of every encoding of every value) is rebuilt only when the set of
    // values changed, not on every call that opens the same secrets again.
    if (changed) this.masker = undefined;
  }

  /** Replaces every secret value this node opened for a call with `***` (the executor's mask). */
  readonly mask = (text: string): string => {
    if (this.opened.size === 0) return text;
    this.masker ??= new SecretMasker(this.opened.keys());
    return this.masker.text(text);
  };

  /** The same for a JSON value (a call's output). */
  readonly maskJson = <T extends JsonValue>(value: T): T => {
    if (this.opened.size === 0) return value;
    this.masker ??= new SecretMasker(this.opened.keys());
    return this.masker.json(value);
  };
}
