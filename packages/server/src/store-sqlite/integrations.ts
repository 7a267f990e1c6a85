import type { JsonObject } from '@baton/protocol';

import type { StoredSecret, StoredService } from '../store/store.js';
import type { SqliteConnection } from './connection.js';
import { list, parse } from './sql.js';

/** SQLite statements of secrets and the service registry (the `Tx` methods delegate here). */

interface SecretRow {
  name: string;
  sealed: string;
  key_id: string;
  create_time: number;
  update_time: number;
}
interface ServiceRow {
  name: string;
  record: string;
  create_time: number;
  update_time: number;
}

const secret = (r: SecretRow): StoredSecret => ({
  name: r.name,
  sealed: r.sealed,
  keyId: r.key_id,
  createTime: r.create_time,
  updateTime: r.update_time,
});
const service = (r: ServiceRow): StoredService => ({
  name: r.name,
  record: parse<JsonObject>(r.record),
  createTime: r.create_time,
  updateTime: r.update_time,
});

export function putSecret(c: SqliteConnection, s: StoredSecret): Promise<void> {
  c.run(
    `INSERT INTO secrets (name, sealed, key_id, create_time, update_time) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (name) DO UPDATE SET sealed = excluded.sealed, key_id = excluded.key_id,
       update_time = excluded.update_time`,
    s.name,
    s.sealed,
    s.keyId,
    s.createTime,
    s.updateTime,
  );
  return Promise.resolve();
}

export function getSecrets(c: SqliteConnection, names: readonly string[]): Promise<StoredSecret[]> {
  if (names.length === 0) return Promise.resolve([]);
  const rows = c.all<SecretRow>(
    'SELECT * FROM secrets WHERE name IN (SELECT value FROM json_each(?)) ORDER BY name',
    list(names),
  );
  return Promise.resolve(rows.map(secret));
}

export function listSecrets(c: SqliteConnection): Promise<Array<Omit<StoredSecret, 'sealed' | 'keyId'>>> {
  const rows = c.all<Omit<SecretRow, 'sealed' | 'key_id'>>(
    'SELECT name, create_time, update_time FROM secrets ORDER BY name',
  );
  return Promise.resolve(
    rows.map((r) => ({ name: r.name, createTime: r.create_time, updateTime: r.update_time })),
  );
}

export function deleteSecret(c: SqliteConnection, name: string): Promise<boolean> {
  return Promise.resolve(c.run('DELETE FROM secrets WHERE name = ?', name).changes > 0);
}

export function putService(c: SqliteConnection, s: StoredService): Promise<void> {
  c.run(
    `INSERT INTO services (name, record, create_time, update_time) VALUES (?, ?, ?, ?)
     ON CONFLICT (name) DO UPDATE SET record = excluded.record, update_time = excluded.update_time`,
    s.name,
    JSON.stringify(s.record),
    s.createTime,
    s.updateTime,
  );
  return Promise.resolve();
}

export function getService(c: SqliteConnection, name: string): Promise<StoredService | undefined> {
  const row = c.get<ServiceRow>('SELECT * FROM services WHERE name = ?', name);
  return Promise.resolve(row && service(row));
}

export function listServices(c: SqliteConnection): Promise<StoredService[]> {
  return Promise.resolve(c.all<ServiceRow>('SELECT * FROM services ORDER BY name').map(service));
}

export function deleteService(c: SqliteConnection, name: string): Promise<boolean> {
  return Promise.resolve(c.run('DELETE FROM services WHERE name = ?', name).changes > 0);
}
