import type { JsonObject } from '@baton/protocol';

import type { AuthRecord, AuthRecordKind, RunAction } from '../store/store.js';
import type { Query } from './sql.js';

/** PostgreSQL statements of authentication records and operator actions (`PgTx` delegates here). */

interface AuthRow {
  kind: string;
  id: string;
  doc: JsonObject;
  create_time: number;
  update_time: number;
}

const record = (r: AuthRow): AuthRecord => ({
  kind: r.kind as AuthRecordKind,
  id: r.id,
  doc: r.doc,
  createTime: r.create_time,
  updateTime: r.update_time,
});

export async function getAuthRecord(
  q: Query,
  kind: AuthRecordKind,
  id: string,
): Promise<AuthRecord | undefined> {
  const { rows } = await q<AuthRow>('SELECT * FROM auth_records WHERE kind = $1 AND id = $2', [kind, id]);
  return rows[0] && record(rows[0]);
}

export async function listAuthRecords(q: Query, kind: AuthRecordKind): Promise<AuthRecord[]> {
  const { rows } = await q<AuthRow>('SELECT * FROM auth_records WHERE kind = $1 ORDER BY create_time, id', [
    kind,
  ]);
  return rows.map(record);
}

export async function insertAuthRecord(q: Query, r: AuthRecord): Promise<boolean> {
  const { rowCount } = await q(
    `INSERT INTO auth_records (kind, id, doc, create_time, update_time) VALUES ($1, $2, $3::jsonb, $4, $5)
     ON CONFLICT (kind, id) DO NOTHING`,
    [r.kind, r.id, JSON.stringify(r.doc), r.createTime, r.updateTime],
  );
  return rowCount === 1;
}

export async function updateAuthRecord(
  q: Query,
  kind: AuthRecordKind,
  id: string,
  doc: JsonObject,
  now: number,
): Promise<boolean> {
  const { rowCount } = await q(
    'UPDATE auth_records SET doc = $3::jsonb, update_time = $4 WHERE kind = $1 AND id = $2',
    [kind, id, JSON.stringify(doc), now],
  );
  return rowCount === 1;
}

export async function deleteAuthRecord(q: Query, kind: AuthRecordKind, id: string): Promise<boolean> {
  const { rowCount } = await q('DELETE FROM auth_records WHERE kind = $1 AND id = $2', [kind, id]);
  return rowCount === 1;
}

export async function appendRunAction(q: Query, a: RunAction): Promise<void> {
  await q(
    'INSERT INTO run_actions (workflow_id, action, actor, at, detail) VALUES ($1, $2, $3, $4, $5::jsonb)',
    [a.workflowId, a.action, a.actor, a.at, a.detail === undefined ? null : JSON.stringify(a.detail)],
  );
}

export async function getRunActions(q: Query, workflowId: string): Promise<RunAction[]> {
  const { rows } = await q<{ action: string; actor: string; at: number; detail: JsonObject | null }>(
    'SELECT action, actor, at, detail FROM run_actions WHERE workflow_id = $1 ORDER BY seq',
    [workflowId],
  );
  return rows.map((r) => ({
    workflowId,
    action: r.action,
    actor: r.actor,
    at: r.at,
    ...(r.detail !== null && { detail: r.detail }),
  }));
}
