import type { JsonObject } from '@baton/protocol';

import type { StoredSecret, StoredService } from '../store/store.js';
import type { Query } from './sql.js';

/** PostgreSQL statements of secrets and the service registry (the `Tx` methods delegate here). */

interface SecretRow {
  name: string;
  sealed: string;
  key_id: string;
  create_time: number;
  update_time: number;
}
interface ServiceRow {
  name: string;
  record: JsonObject;
  create_time: number;
  update_time: number;
}

export async function putSecret(q: Query, s: StoredSecret): Promise<void> {
  await q(
    `INSERT INTO secrets (name, sealed, key_id, create_time, update_time) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (name) DO UPDATE SET sealed = EXCLUDED.sealed, key_id = EXCLUDED.key_id,
       update_time = EXCLUDED.update_time`,
    [s.name, s.sealed, s.keyId, s.createTime, s.updateTime],
  );
}

export async function getSecrets(q: Query, names: readonly string[]): Promise<StoredSecret[]> {
  if (names.length === 0) return [];
  const { rows } = await q<SecretRow>('SELECT * FROM secrets WHERE name = ANY($1::text[]) ORDER BY name', [
    [...new Set(names)],
  ]);
  return rows.map((r) => ({
    name: r.name,
    sealed: r.sealed,
    keyId: r.key_id,
    createTime: r.create_time,
    updateTime: r.update_time,
  }));
}

export async function listSecrets(q: Query): Promise<Array<Omit<StoredSecret, 'sealed' | 'keyId'>>> {
  const { rows } = await q<Omit<SecretRow, 'sealed' | 'key_id'>>(
    'SELECT name, create_time, update_time FROM secrets ORDER BY name',
  );
  return rows.map((r) => ({ name: r.name, createTime: r.create_time, updateTime: r.update_time }));
}

export async function deleteSecret(q: Query, name: string): Promise<boolean> {
  const { rowCount } = await q('DELETE FROM secrets WHERE name = $1', [name]);
  return (rowCount ?? 0) > 0;
}

export async function putService(q: Query, s: StoredService): Promise<void> {
  await q(
    `INSERT INTO services (name, record, create_time, update_time) VALUES ($1, $2::jsonb, $3, $4)
     ON CONFLICT (name) DO UPDATE SET record = EXCLUDED.record, update_time = EXCLUDED.update_time`,
    [s.name, JSON.stringify(s.record), s.createTime, s.updateTime],
  );
}

const service = (r: ServiceRow): StoredService => ({
  name: r.name,
  record: r.record,
  createTime: r.create_time,
  updateTime: r.update_time,
});

export async function getService(q: Query, name: string): Promise<StoredService | undefined> {
  const { rows } = await q<ServiceRow>('SELECT * FROM services WHERE name = $1', [name]);
  const row = rows[0];
  return row && service(row);
}

export async function listServices(q: Query): Promise<StoredService[]> {
  const { rows } = await q<ServiceRow>('SELECT * FROM services ORDER BY name');
  return rows.map(service);
}

export async function deleteService(q: Query, name: string): Promise<boolean> {
  const { rowCount } = await q('DELETE FROM services WHERE name = $1', [name]);
  return (rowCount ?? 0) > 0;
}
