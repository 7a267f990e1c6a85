import { randomUUID } from 'node:crypto';

import type { JsonObject } from '@baton/protocol';

import type { Clock } from '../clock.js';
import { type BatonError, fail } from '../errors.js';
import type { AuthRecord, Store, Tx } from '../store/store.js';
import { hashSecret, newSecret, verifySecret } from './secret-hash.js';

/** Orkes's application shapes (`ExtendedConductorApplication`, `AccessKey`, `AccessKeyInfo`), plus `roles`. */
export interface Tag {
  key?: string;
  value?: string;
  type?: string;
}
export interface Application {
  id: string;
  name: string;
  roles: string[];
  tags: Tag[];
  createTime: number;
  updateTime: number;
  createdBy: string;
  updatedBy: string;
}
export interface AccessKeyInfo {
  id: string;
  createdAt: number;
  status: 'ACTIVE' | 'INACTIVE';
}
interface AppDoc {
  name: string;
  roles: string[];
  tags: Tag[];
  createdBy: string;
  updatedBy: string;
}
interface KeyDoc {
  applicationId: string;
  secretHash: string;
  status: 'ACTIVE' | 'INACTIVE';
}

/** The application of the bootstrap key (BATON_AUTH_BOOTSTRAP_KEY_ID). */
export const BOOTSTRAP_APPLICATION_ID = 'bootstrap-admin';

function application(r: AuthRecord): Application {
  const doc = r.doc as unknown as AppDoc;
  return {
    id: r.id,
    name: doc.name,
    roles: doc.roles,
    tags: doc.tags,
    createTime: r.createTime,
    updateTime: r.updateTime,
    createdBy: doc.createdBy,
    updatedBy: doc.updatedBy,
  };
}

const keyInfo = (r: AuthRecord): AccessKeyInfo => ({
  id: r.id,
  createdAt: r.createTime,
  status: (r.doc as unknown as KeyDoc).status,
});

const invalidKey = (): BatonError => fail('ACCESS_KEY_INVALID');

/** Applications (callers that are programs, such as SDK workers), their roles and access keys. */
export class Applications {
  /** Roles of each access key, kept briefly so a token check costs no query (revocation applies within this time). */
  private readonly cache = new Map<string, { at: number; roles: string[] | undefined }>();
  static readonly CACHE_MS = 5000;
  private decoy: Promise<string> | undefined;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  list(): Promise<Application[]> {
    return this.store.read(async (tx) => (await tx.listAuthRecords('application')).map(application));
  }

  async get(id: string): Promise<Application> {
    const r = await this.store.read((tx) => tx.getAuthRecord('application', id));
    if (!r) throw fail('APPLICATION_NOT_FOUND', { id });
    return application(r);
  }

  async create(name: string, actor: string): Promise<Application> {
    const now = this.clock.now();
    const id = randomUUID();
    const doc: AppDoc = { name, roles: [], tags: [], createdBy: actor, updatedBy: actor };
    return this.store.transaction(async (tx) => {
      await tx.insertAuthRecord({
        kind: 'application',
        id,
        doc: doc as unknown as JsonObject,
        createTime: now,
        updateTime: now,
      });
      return application((await tx.getAuthRecord('application', id)) as AuthRecord);
    });
  }

  /** Changes an application's document under a transaction; answers it as stored. */
  private change(id: string, actor: string, edit: (doc: AppDoc) => void): Promise<Application> {
    return this.store.transaction(async (tx) => {
      const r = await tx.getAuthRecord('application', id);
      if (!r) throw fail('APPLICATION_NOT_FOUND', { id });
      const doc = { ...(r.doc as unknown as AppDoc) };
      edit(doc);
      doc.updatedBy = actor;
      await tx.updateAuthRecord('application', id, doc as unknown as JsonObject, this.clock.now());
      this.cache.clear();
      return application((await tx.getAuthRecord('application', id)) as AuthRecord);
    });
  }

  rename(id: string, name: string, actor: string): Promise<Application> {
    return this.change(id, actor, (doc) => {
      doc.name = name;
    });
  }

  addRole(id: string, role: string, actor: string): Promise<Application> {
    return this.change(id, actor, (doc) => {
      if (!doc.roles.includes(role)) doc.roles = [...doc.roles, role];
    });
  }

  removeRole(id: string, role: string, actor: string): Promise<Application> {
    return this.change(id, actor, (doc) => {
      doc.roles = doc.roles.filter((r) => r !== role);
    });
  }

  putTags(id: string, tags: Tag[], actor: string): Promise<Application> {
    return this.change(id, actor, (doc) => {
      const key = (t: Tag): string => `${t.key ?? ''}\u0000${t.value ?? ''}`;
      const merged = new Map(doc.tags.map((t) => [key(t), t]));
      for (const t of tags) merged.set(key(t), t);
      doc.tags = [...merged.values()];
    });
  }

  deleteTags(id: string, tags: Tag[], actor: string): Promise<Application> {
    return this.change(id, actor, (doc) => {
      doc.tags = doc.tags.filter((t) => !tags.some((d) => d.key === t.key && d.value === t.value));
    });
  }

  /** Removes the application and its access keys together. */
  async remove(id: string): Promise<void> {
    await this.store.transaction(async (tx) => {
      if (!(await tx.deleteAuthRecord('application', id))) throw fail('APPLICATION_NOT_FOUND', { id });
      for (const key of await this.keysOf(tx, id)) await tx.deleteAuthRecord('access_key', key.id);
    });
    this.cache.clear();
  }

  private async keysOf(tx: Tx, applicationId: string): Promise<AuthRecord[]> {
    return (await tx.listAuthRecords('access_key')).filter(
      (r) => (r.doc as unknown as KeyDoc).applicationId === applicationId,
    );
  }

  async keys(applicationId: string): Promise<AccessKeyInfo[]> {
    return this.store.read(async (tx) => {
      if (!(await tx.getAuthRecord('application', applicationId))) {
        throw fail('APPLICATION_NOT_FOUND', { id: applicationId });
      }
      return (await this.keysOf(tx, applicationId)).map(keyInfo);
    });
  }

  /** Makes an access key; the secret is in this answer only (the store keeps its hash). */
  async createKey(applicationId: string): Promise<{ id: string; secret: string }> {
    const id = randomUUID();
    const secret = newSecret();
    const doc: KeyDoc = { applicationId, secretHash: await hashSecret(secret), status: 'ACTIVE' };
    const now = this.clock.now();
    await this.store.transaction(async (tx) => {
      if (!(await tx.getAuthRecord('application', applicationId))) {
        throw fail('APPLICATION_NOT_FOUND', { id: applicationId });
      }
      await tx.insertAuthRecord({
        kind: 'access_key',
        id,
        doc: doc as unknown as JsonObject,
        createTime: now,
        updateTime: now,
      });
    });
    return { id, secret };
  }

  private async keyOf(tx: Tx, applicationId: string, keyId: string): Promise<AuthRecord> {
    const r = await tx.getAuthRecord('access_key', keyId);
    if (!r || (r.doc as unknown as KeyDoc).applicationId !== applicationId) {
      throw fail('ACCESS_KEY_NOT_FOUND', { keyId });
    }
    return r;
  }

  async deleteKey(applicationId: string, keyId: string): Promise<void> {
    await this.store.transaction(async (tx) => {
      await this.keyOf(tx, applicationId, keyId);
      await tx.deleteAuthRecord('access_key', keyId);
    });
    this.cache.delete(keyId);
  }

  /** Turns an access key ACTIVE ↔ INACTIVE (Orkes's toggle). */
  async toggleKey(applicationId: string, keyId: string): Promise<AccessKeyInfo> {
    const info = await this.store.transaction(async (tx) => {
      const r = await this.keyOf(tx, applicationId, keyId);
      const doc = r.doc as unknown as KeyDoc;
      const next: KeyDoc = { ...doc, status: doc.status === 'ACTIVE' ? 'INACTIVE' : 'ACTIVE' };
      await tx.updateAuthRecord('access_key', keyId, next as unknown as JsonObject, this.clock.now());
      return keyInfo({ ...r, doc: next as unknown as JsonObject });
    });
    this.cache.delete(keyId);
    return info;
  }

  async applicationOfKey(keyId: string): Promise<Application> {
    return this.store.read(async (tx) => {
      const key = await tx.getAuthRecord('access_key', keyId);
      const app =
        key && (await tx.getAuthRecord('application', (key.doc as unknown as KeyDoc).applicationId));
      if (!app) throw fail('ACCESS_KEY_NOT_FOUND', { keyId });
      return application(app);
    });
  }

  /** Checks a key id and secret (POST /api/token); answers the application's id. */
  async authenticate(keyId: string, secret: string): Promise<string> {
    const key = await this.store.read((tx) => tx.getAuthRecord('access_key', keyId));
    const doc = key?.doc as unknown as KeyDoc | undefined;
    // An unknown key id costs a hash too, so answer times do not tell which key ids exist.
    const valid = await verifySecret(secret, doc?.secretHash ?? (await this.decoyHash()));
    if (!doc || !valid) throw invalidKey();
    if (doc.status !== 'ACTIVE') throw fail('ACCESS_KEY_INACTIVE');
    return doc.applicationId;
  }

  private decoyHash(): Promise<string> {
    this.decoy ??= hashSecret(newSecret());
    return this.decoy;
  }

  /**
   * The roles of the application an access key belongs to; undefined when the key was deleted,
   * turned inactive, or its application removed (its tokens stop working within CACHE_MS).
   */
  async rolesOfKey(keyId: string): Promise<string[] | undefined> {
    const now = this.clock.now();
    const hit = this.cache.get(keyId);
    if (hit && now - hit.at < Applications.CACHE_MS) return hit.roles;
    const roles = await this.store.read(async (tx) => {
      const key = await tx.getAuthRecord('access_key', keyId);
      const doc = key?.doc as unknown as KeyDoc | undefined;
      if (!doc || doc.status !== 'ACTIVE') return undefined;
      const app = await tx.getAuthRecord('application', doc.applicationId);
      return app ? (app.doc as unknown as AppDoc).roles : undefined;
    });
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(keyId, { at: now, roles });
    return roles;
  }

  /**
   * Makes sure the bootstrap key exists, belongs to the bootstrap application and has the admin
   * role, with this secret. Runs before the server listens, so there is no moment in which the
   * server is up and nobody can administer it, nor one in which it is open.
   */
  async bootstrap(keyId: string, secret: string, adminRole: string): Promise<void> {
    const now = this.clock.now();
    const existing = await this.store.read((tx) => tx.getAuthRecord('access_key', keyId));
    const existingDoc = existing?.doc as unknown as KeyDoc | undefined;
    const secretHash =
      existingDoc && (await verifySecret(secret, existingDoc.secretHash))
        ? existingDoc.secretHash
        : await hashSecret(secret);
    await this.store.transaction(async (tx) => {
      const app = await tx.getAuthRecord('application', BOOTSTRAP_APPLICATION_ID);
      const appDoc: AppDoc = app
        ? { ...(app.doc as unknown as AppDoc) }
        : { name: 'bootstrap admin', roles: [], tags: [], createdBy: 'bootstrap', updatedBy: 'bootstrap' };
      if (!appDoc.roles.includes(adminRole)) appDoc.roles = [...appDoc.roles, adminRole];
      const appRecord = {
        kind: 'application' as const,
        id: BOOTSTRAP_APPLICATION_ID,
        doc: appDoc as unknown as JsonObject,
        createTime: now,
        updateTime: now,
      };
      if (!(await tx.insertAuthRecord(appRecord))) {
        await tx.updateAuthRecord('application', BOOTSTRAP_APPLICATION_ID, appRecord.doc, now);
      }
      const keyDoc: KeyDoc = { applicationId: BOOTSTRAP_APPLICATION_ID, secretHash, status: 'ACTIVE' };
      const keyRecord = {
        kind: 'access_key' as const,
        id: keyId,
        doc: keyDoc as unknown as JsonObject,
        createTime: now,
        updateTime: now,
      };
      if (!(await tx.insertAuthRecord(keyRecord))) {
        await tx.updateAuthRecord('access_key', keyId, keyRecord.doc, now);
      }
    });
    this.cache.clear();
  }
}
