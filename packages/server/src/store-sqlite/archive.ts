import type { RunLinks, TaskLog } from '@baton/protocol';

import {
  ARCHIVABLE_STATUSES,
  ARCHIVED_COLUMNS,
  type ArchivedRunRow,
  archivedFromRow,
  archivedParams,
} from '../store/archive-rows.js';
import type { ArchiveClaim, ArchivedRun } from '../store/store.js';
import type { SqliteConnection } from './connection.js';

/** The archive's statements on SQLite (`SqliteTx` calls them). One writer: no SKIP LOCKED needed. */

export function claimRunsToArchive(c: SqliteConnection, claim: ArchiveClaim): string[] {
  const due = c.all<{ workflow_id: string }>(
    `SELECT r.workflow_id FROM runs r
      WHERE r.end_time > 0 AND r.end_time <= ? AND r.status IN (SELECT value FROM json_each(?))
        AND NOT EXISTS (SELECT 1 FROM archive_claims a WHERE a.workflow_id = r.workflow_id AND a.claimed_until > ?)
      ORDER BY r.end_time LIMIT ?`,
    claim.endedBefore,
    JSON.stringify(ARCHIVABLE_STATUSES),
    claim.now,
    claim.limit,
  );
  for (const { workflow_id } of due) {
    c.run(
      `INSERT INTO archive_claims (workflow_id, node, claimed_until) VALUES (?, ?, ?)
       ON CONFLICT (workflow_id) DO UPDATE SET node = excluded.node, claimed_until = excluded.claimed_until`,
      workflow_id,
      claim.node,
      claim.leaseUntil,
    );
  }
  return due.map((r) => r.workflow_id);
}

export function getRunLogs(c: SqliteConnection, workflowId: string): TaskLog[] {
  return c
    .all<{ task_id: string; log: string; created_time: number }>(
      `SELECT task_id, log, created_time FROM task_logs
        WHERE task_id IN (SELECT task_id FROM tasks WHERE workflow_id = ?) ORDER BY id`,
      workflowId,
    )
    .map((r) => ({ taskId: r.task_id, log: r.log, createdTime: r.created_time }));
}

const DELETE_RUN_ROWS = [
  'DELETE FROM task_logs WHERE task_id IN (SELECT task_id FROM tasks WHERE workflow_id = ?)',
  'DELETE FROM task_latest WHERE workflow_id = ?',
  'DELETE FROM queue_messages WHERE workflow_id = ?',
  'DELETE FROM timers WHERE workflow_id = ?',
  'DELETE FROM run_messages WHERE workflow_id = ?',
  'DELETE FROM tasks WHERE workflow_id = ?',
  'DELETE FROM archive_claims WHERE workflow_id = ?',
  'DELETE FROM runs WHERE workflow_id = ?',
] as const;

export function deleteRunRows(c: SqliteConnection, workflowId: string): void {
  for (const statement of DELETE_RUN_ROWS) c.run(statement, workflowId);
}

export function deleteRunTraces(c: SqliteConnection, workflowId: string): void {
  c.run('DELETE FROM idempotency_keys WHERE workflow_id = ?', workflowId);
  c.run('DELETE FROM run_actions WHERE workflow_id = ?', workflowId);
}

export function insertArchivedRun(c: SqliteConnection, row: ArchivedRun): void {
  c.run(
    `INSERT INTO archived_runs (${ARCHIVED_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ...archivedParams(row),
  );
}

export function getArchivedRun(c: SqliteConnection, workflowId: string): ArchivedRun | undefined {
  const row = c.get<ArchivedRunRow>(
    `SELECT ${ARCHIVED_COLUMNS} FROM archived_runs WHERE workflow_id = ?`,
    workflowId,
  );
  return row ? archivedFromRow(row) : undefined;
}

export function archivedRunsByCorrelationId(
  c: SqliteConnection,
  name: string,
  correlationId: string,
): ArchivedRun[] {
  return c
    .all<ArchivedRunRow>(
      `SELECT ${ARCHIVED_COLUMNS} FROM archived_runs WHERE correlation_id = ? AND workflow_name = ?
        ORDER BY create_time, workflow_id`,
      correlationId,
      name,
    )
    .map(archivedFromRow);
}

export function updateArchivedRunLinks(c: SqliteConnection, workflowId: string, links: RunLinks): void {
  c.run('UPDATE archived_runs SET links = ? WHERE workflow_id = ?', JSON.stringify(links), workflowId);
}

export function deleteArchivedRun(c: SqliteConnection, workflowId: string): boolean {
  return c.run('DELETE FROM archived_runs WHERE workflow_id = ?', workflowId).changes > 0;
}
