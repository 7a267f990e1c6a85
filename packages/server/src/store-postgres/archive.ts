import type { RunLinks, TaskLog } from '@baton/protocol';

import {
  ARCHIVABLE_STATUSES,
  ARCHIVED_COLUMNS,
  type ArchivedRunRow,
  archivedFromRow,
  archivedParams,
} from '../store/archive-rows.js';
import type { ArchiveClaim, ArchivedRun } from '../store/store.js';
import type { Query } from './sql.js';

/** The archive's statements on PostgreSQL (`PgTx` calls them). */

export async function claimRunsToArchive(q: Query, claim: ArchiveClaim): Promise<string[]> {
  // SKIP LOCKED keeps concurrent claimers apart while they claim; the upsert's condition keeps
  // a live claim of another node (committed meanwhile) from being taken over.
  const { rows } = await q<{ workflow_id: string }>(
    `WITH due AS (
       SELECT r.workflow_id FROM runs r
        WHERE r.end_time > 0 AND r.end_time <= $1::bigint AND r.status = ANY($2::text[])
          AND NOT EXISTS (SELECT 1 FROM archive_claims a WHERE a.workflow_id = r.workflow_id AND a.claimed_until > $3::bigint)
        ORDER BY r.end_time LIMIT $4 FOR UPDATE OF r SKIP LOCKED)
     INSERT INTO archive_claims (workflow_id, node, claimed_until)
       SELECT workflow_id, $5::text, $6::bigint FROM due
     ON CONFLICT (workflow_id) DO UPDATE SET node = EXCLUDED.node, claimed_until = EXCLUDED.claimed_until
       WHERE archive_claims.claimed_until <= $3::bigint
     RETURNING workflow_id`,
    [claim.endedBefore, [...ARCHIVABLE_STATUSES], claim.now, claim.limit, claim.node, claim.leaseUntil],
  );
  return rows.map((r) => r.workflow_id);
}

export async function getRunLogs(q: Query, workflowId: string): Promise<TaskLog[]> {
  const { rows } = await q<{ task_id: string; log: string; created_time: number | string }>(
    `SELECT l.task_id, l.log, l.created_time FROM task_logs l
      WHERE l.task_id IN (SELECT task_id FROM tasks WHERE workflow_id = $1) ORDER BY l.id`,
    [workflowId],
  );
  return rows.map((r) => ({ taskId: r.task_id, log: r.log, createdTime: Number(r.created_time) }));
}

export async function deleteRunRows(q: Query, workflowId: string): Promise<void> {
  // One statement (data-modifying CTEs all run, on one snapshot), so one round trip. Logs are
  // found through the run's tasks, which the same snapshot still shows.
  await q(
    `WITH logs AS (DELETE FROM task_logs WHERE task_id IN (SELECT task_id FROM tasks WHERE workflow_id = $1)),
          latest AS (DELETE FROM task_latest WHERE workflow_id = $1),
          messages AS (DELETE FROM queue_messages WHERE workflow_id = $1),
          timers AS (DELETE FROM timers WHERE workflow_id = $1),
          mailbox AS (DELETE FROM run_messages WHERE workflow_id = $1),
          tasks AS (DELETE FROM tasks WHERE workflow_id = $1),
          claims AS (DELETE FROM archive_claims WHERE workflow_id = $1)
     DELETE FROM runs WHERE workflow_id = $1`,
    [workflowId],
  );
}

export async function deleteRunTraces(q: Query, workflowId: string): Promise<void> {
  await q(
    `WITH keys AS (DELETE FROM idempotency_keys WHERE workflow_id = $1)
     DELETE FROM run_actions WHERE workflow_id = $1`,
    [workflowId],
  );
}

export async function insertArchivedRun(q: Query, row: ArchivedRun): Promise<void> {
  await q(
    `INSERT INTO archived_runs (${ARCHIVED_COLUMNS})
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12, $13, $14)`,
    archivedParams(row),
  );
}

export async function getArchivedRun(q: Query, workflowId: string): Promise<ArchivedRun | undefined> {
  const { rows } = await q<ArchivedRunRow>(
    `SELECT ${ARCHIVED_COLUMNS} FROM archived_runs WHERE workflow_id = $1`,
    [workflowId],
  );
  return rows[0] ? archivedFromRow(rows[0]) : undefined;
}

export async function archivedRunsByCorrelationId(
  q: Query,
  name: string,
  correlationId: string,
): Promise<ArchivedRun[]> {
  const { rows } = await q<ArchivedRunRow>(
    `SELECT ${ARCHIVED_COLUMNS} FROM archived_runs WHERE correlation_id = $1 AND workflow_name = $2
      ORDER BY create_time, workflow_id`,
    [correlationId, name],
  );
  return rows.map(archivedFromRow);
}

export async function updateArchivedRunLinks(q: Query, workflowId: string, links: RunLinks): Promise<void> {
  await q('UPDATE archived_runs SET links = $2::jsonb WHERE workflow_id = $1', [
    workflowId,
    JSON.stringify(links),
  ]);
}

export async function deleteArchivedRun(q: Query, workflowId: string): Promise<boolean> {
  const { rowCount } = await q('DELETE FROM archived_runs WHERE workflow_id = $1', [workflowId]);
  return (rowCount ?? 0) > 0;
}
