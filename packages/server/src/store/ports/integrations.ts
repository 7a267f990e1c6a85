import type { JsonObject } from '@baton/protocol';

import type { PortAccess } from './access.js';

/** A secret as stored: its value sealed by the secrets cipher (the store never sees plain text). */
export interface StoredSecret {
  name: string;
  /** base64 of IV, auth tag and ciphertext. */
  sealed: string;
  /** Which key sealed it (a digest of the key, not the key). */
  keyId: string;
  createTime: number;
  updateTime: number;
}

/** A service registry entry; `record` is the registry's own shape (credentials are secret names). */
export interface StoredService {
  name: string;
  record: JsonObject;
  createTime: number;
  updateTime: number;
}

/** Secrets and the service registry (integrations). */
export interface IntegrationsPort {
  /** Inserts or replaces a secret (createTime of an existing row is kept). */
  putSecret(secret: StoredSecret): Promise<void>;
  /** The named secrets that exist, in name order. */
  getSecrets(names: readonly string[]): Promise<StoredSecret[]>;
  /** Every secret without its sealed value, in name order. */
  listSecrets(): Promise<Array<Omit<StoredSecret, 'sealed' | 'keyId'>>>;
  deleteSecret(name: string): Promise<boolean>;
  /** Inserts or replaces a service (createTime of an existing row is kept). */
  putService(service: StoredService): Promise<void>;
  getService(name: string): Promise<StoredService | undefined>;
  /** Every service, in name order. */
  listServices(): Promise<StoredService[]>;
  deleteService(name: string): Promise<boolean>;
}

/** Which `IntegrationsPort` methods write (refused inside `read()`); every method is checked (tx-access.ts). */
export const INTEGRATIONS_ACCESS = {
  putSecret: 'write',
  getSecrets: 'read',
  listSecrets: 'read',
  deleteSecret: 'write',
  putService: 'write',
  getService: 'read',
  listServices: 'read',
  deleteService: 'write',
} as const satisfies PortAccess<IntegrationsPort>;
