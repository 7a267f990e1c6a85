import type { JsonObject, WorkflowMessage } from '@baton/protocol';

import type { SqliteConnection } from './connection.js';
import { list, parse } from './sql.js';

/** SQLite statements of run mailboxes and idempotent starts (the `Tx` methods delegate here). */

export function appendRunMessage(c: SqliteConnection, message: WorkflowMessage): Promise<void> {
  c.run(
    'INSERT INTO run_messages (message_id, workflow_id, payload, received_at) VALUES (?, ?, ?, ?)',
    message.id,
    message.workflowId,
    JSON.stringify(message.payload),
    message.receivedAt,
  );
  return Promise.resolve();
}

export function getRunMessages(
  c: SqliteConnection,
  workflowId: string,
  limit: number,
): Promise<WorkflowMessage[]> {
  const rows = c
    .all<{ message_id: string; payload: string; received_at: number }>(
      'SELECT message_id, payload, received_at FROM run_messages WHERE workflow_id = ? ORDER BY seq LIMIT ?',
      workflowId,
      Math.max(0, limit),
    )
    .map((r) => ({
      id: r.message_id,
      workflowId,
      payload: parse<JsonObject>(r.payload),
      receivedAt: r.received_at,
    }));
  return Promise.resolve(rows);
}

export function deleteRunMessages(
  c: SqliteConnection,
  workflowId: string,
  messageIds: readonly string[],
): Promise<void> {
  if (messageIds.length > 0) {
    c.run(
      'DELETE FROM run_messages WHERE workflow_id = ? AND message_id IN (SELECT value FROM json_each(?))',
      workflowId,
      list(messageIds),
    );
  }
  return Promise.resolve();
}

/** One writer at a time: the INSERT either claims the key or finds it taken. */
export function claimIdempotencyKey(
  c: SqliteConnection,
  name: string,
  key: string,
  workflowId: string,
  now: number,
): Promise<string | undefined> {
  const inserted = c.run(
    `INSERT INTO idempotency_keys (workflow_name, idempotency_key, workflow_id, create_time) VALUES (?, ?, ?, ?)
     ON CONFLICT (workflow_name, idempotency_key) DO NOTHING`,
    name,
    key,
    workflowId,
    now,
  );
  if (inserted.changes === 1) return Promise.resolve(undefined);
  return Promise.resolve(
    c.get<{ workflow_id: string }>(
      'SELECT workflow_id FROM idempotency_keys WHERE workflow_name = ? AND idempotency_key = ?',
      name,
      key,
    )?.workflow_id,
  );
}
