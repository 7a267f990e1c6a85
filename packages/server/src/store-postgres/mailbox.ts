import type { JsonObject, WorkflowMessage } from '@baton/protocol';

import { uniqueSorted } from '../store/sql-common.js';
import type { Query } from './sql.js';

/** PostgreSQL statements of run mailboxes and idempotent starts (the `Tx` methods delegate here). */

export async function appendRunMessage(q: Query, message: WorkflowMessage): Promise<void> {
  await q(
    'INSERT INTO run_messages (message_id, workflow_id, payload, received_at) VALUES ($1, $2, $3::jsonb, $4)',
    [message.id, message.workflowId, JSON.stringify(message.payload), message.receivedAt],
  );
}

export async function getRunMessages(
  q: Query,
  workflowId: string,
  limit: number,
): Promise<WorkflowMessage[]> {
  const { rows } = await q<{ message_id: string; payload: JsonObject; received_at: number }>(
    'SELECT message_id, payload, received_at FROM run_messages WHERE workflow_id = $1 ORDER BY seq LIMIT $2',
    [workflowId, Math.max(0, limit)],
  );
  return rows.map((r) => ({ id: r.message_id, workflowId, payload: r.payload, receivedAt: r.received_at }));
}

export async function deleteRunMessages(
  q: Query,
  workflowId: string,
  messageIds: readonly string[],
): Promise<void> {
  if (messageIds.length === 0) return;
  await q('DELETE FROM run_messages WHERE workflow_id = $1 AND message_id = ANY($2::text[])', [
    workflowId,
    uniqueSorted(messageIds),
  ]);
}

export async function claimIdempotencyKey(
  q: Query,
  name: string,
  key: string,
  workflowId: string,
  now: number,
): Promise<string | undefined> {
  // A concurrent claim of the same key waits on the primary key until the first commits (or
  // rolls back), then inserts nothing; the SELECT, a new statement, sees the committed row.
  const { rowCount } = await q(
    `INSERT INTO idempotency_keys (workflow_name, idempotency_key, workflow_id, create_time)
     VALUES ($1, $2, $3, $4) ON CONFLICT (workflow_name, idempotency_key) DO NOTHING`,
    [name, key, workflowId, now],
  );
  if (rowCount === 1) return undefined;
  const { rows } = await q<{ workflow_id: string }>(
    'SELECT workflow_id FROM idempotency_keys WHERE workflow_name = $1 AND idempotency_key = $2',
    [name, key],
  );
  return rows[0]?.workflow_id;
}
