import type { RunLinks, WorkflowStatus } from '@baton/protocol';

import type { ArchivedRun } from './store.js';

/** Statuses of runs the archiver may move: every ended status. */
export const ARCHIVABLE_STATUSES = ['COMPLETED', 'FAILED', 'TIMED_OUT', 'TERMINATED'] as const;

/** An `archived_runs` row as both drivers return it (JSON parsed by pg, text on SQLite). */
export interface ArchivedRunRow {
  workflow_id: string;
  workflow_name: string;
  workflow_version: number;
  status: string;
  correlation_id: string | null;
  priority: number;
  parent_workflow_id: string | null;
  create_time: number | string;
  update_time: number | string;
  end_time: number | string;
  links: RunLinks | string;
  blob_key: string;
  blob_sha256: string;
  archived_at: number | string;
}

export const ARCHIVED_COLUMNS =
  'workflow_id, workflow_name, workflow_version, status, correlation_id, priority, parent_workflow_id, create_time, update_time, end_time, links, blob_key, blob_sha256, archived_at';

export function archivedFromRow(row: ArchivedRunRow): ArchivedRun {
  const out: ArchivedRun = {
    workflowId: row.workflow_id,
    workflowName: row.workflow_name,
    workflowVersion: Number(row.workflow_version),
    status: row.status as WorkflowStatus,
    priority: Number(row.priority),
    createTime: Number(row.create_time),
    updateTime: Number(row.update_time),
    endTime: Number(row.end_time),
    links: typeof row.links === 'string' ? (JSON.parse(row.links) as RunLinks) : row.links,
    blobKey: row.blob_key,
    blobSha256: row.blob_sha256,
    archivedAt: Number(row.archived_at),
  };
  if (row.correlation_id !== null) out.correlationId = row.correlation_id;
  if (row.parent_workflow_id !== null) out.parentWorkflowId = row.parent_workflow_id;
  return out;
}

/** Parameters of an `archived_runs` insert, in ARCHIVED_COLUMNS order. */
export function archivedParams(row: ArchivedRun): unknown[] {
  return [
    row.workflowId,
    row.workflowName,
    row.workflowVersion,
    row.status,
    row.correlationId ?? null,
    row.priority,
    row.parentWorkflowId ?? null,
    row.createTime,
    row.updateTime,
    row.endTime,
    JSON.stringify(row.links),
    row.blobKey,
    row.blobSha256,
    row.archivedAt,
  ];
}
