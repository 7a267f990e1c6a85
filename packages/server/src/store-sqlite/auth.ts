/* eslint-disable @typescript-eslint/require-await -- better-sqlite3 is synchronous; the port is async. */
import type { JsonObject } from '@baton/protocol';

import type { AuthRecord, AuthRecordKind, RunAction } from '../store/store.js';
import type { SqliteConnection } from './connection.js';
import { parse } from './sql.js';

/** SQLite statements of authentication records and operator actions (`SqliteTx` delegates here). */

interface AuthRow {
  kind: string;
  id: string;
  doc: string;
  create_time: number;
  update_time: number;
}

const record = (r: AuthRow): AuthRecord => ({
  kind: r.kind as AuthRecordKind,
  id: r.id,
  doc: parse<JsonObject>(r.doc),
  createTime: r.create_time,
  updateTime: r.update_time,
});

export async function getAuthRecord(
  c: SqliteConnection,
  kind: AuthRecordKind,
  id: string,
): Promise<AuthRecord | undefined> {
  const row = c.get<AuthRow>('SELECT * FROM auth_records WHERE kind = ? AND id = ?', kind, id);
  return row && record(row);
}

export async function listAuthRecords(c: SqliteConnection, kind: AuthRecordKind): Promise<AuthRecord[]> {
  return c
    .all<AuthRow>('SELECT * FROM auth_records WHERE kind = ? ORDER BY create_time, id', kind)
    .map(record);
}

export async function insertAuthRecord(c: SqliteConnection, r: AuthRecord): Promise<boolean> {
  const result = c.run(
    `INSERT INTO auth_records (kind, id, doc, create_time, update_time) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (kind, id) DO NOTHING`,
    r.kind,
    r.id,
    JSON.stringify(r.doc),
    r.createTime,
    r.updateTime,
  );
  return result.changes === 1;
}

export async function updateAuthRecord(
  c: SqliteConnection,
  kind: AuthRecordKind,
  id: string,
  doc: JsonObject,
  now: number,
): Promise<boolean> {
  const result = c.run(
    'UPDATE auth_records SET doc = ?, update_time = ? WHERE kind = ? AND id = ?',
    JSON.stringify(doc),
    now,
    kind,
    id,
  );
  return result.changes === 1;
}

export async function deleteAuthRecord(
  c: SqliteConnection,
  kind: AuthRecordKind,
  id: string,
): Promise<boolean> {
  return c.run('DELETE FROM auth_records WHERE kind = ? AND id = ?', kind, id).changes === 1;
}

export async function appendRunAction(c: SqliteConnection, a: RunAction): Promise<void> {
  c.run(
    'INSERT INTO run_actions (workflow_id, action, actor, at, detail) VALUES (?, ?, ?, ?, ?)',
    a.workflowId,
    a.action,
    a.actor,
    a.at,
    a.detail === undefined ? null : JSON.stringify(a.detail),
  );
}

export async function getRunActions(c: SqliteConnection, workflowId: string): Promise<RunAction[]> {
  return c
    .all<{ action: string; actor: string; at: number; detail: string | null }>(
      'SELECT action, actor, at, detail FROM run_actions WHERE workflow_id = ? ORDER BY seq',
      workflowId,
    )
    .map((r) => ({
      workflowId,
      action: r.action,
      actor: r.actor,
      at: r.at,
      ...(r.detail !== null && { detail: parse<JsonObject>(r.detail) }),
    }));
}
