import type { RunRecord, WorkflowDef, WorkflowStatus } from '@baton/protocol';

import { runRecordColumn } from '../store/sql-common.js';
import type { RunDefinitionColumns } from './run-definitions.js';
import { databaseSetting } from './store-settings.js';

/**
 * How a node writes a run row on PostgreSQL. `whole`, as every earlier release writes and reads
 * it: `record` is the whole run but its definition, and `definition` the snapshot it started
 * with. `compact`: `record` leaves out what the row's columns hold (its id, name, version,
 * status, correlation id, priority, parent, idempotency key and times: about 260 bytes of jsonb),
 * and the snapshot is kept once per distinct text in `run_definitions`, the row holding its
 * digest (run-definitions.ts). Reads take either shape, row by row.
 */
export type RunRowsMode = 'whole' | 'compact';

const RUN_ROWS_SETTING = 'run_rows';
const RUN_ROWS_MODES = ['whole', 'compact'] as const;

/** What every read of a run selects: the columns, the record, and the definition or its digest. */
export const RUN_COLUMNS = `workflow_id, workflow_name, workflow_version, status, correlation_id, priority,
  parent_workflow_id, idempotency_key, create_time, update_time, end_time, record, definition,
  encode(definition_digest, 'hex') AS definition_digest`;

/** The run fields a compact record leaves to the row's columns. */
type ColumnFields =
  | 'workflowId'
  | 'workflowName'
  | 'workflowVersion'
  | 'status'
  | 'correlationId'
  | 'priority'
  | 'parentWorkflowId'
  | 'idempotencyKey'
  | 'createTime'
  | 'updateTime'
  | 'endTime';

/** A run row as read (`RUN_COLUMNS`). A whole record also holds the column fields, a compact one not. */
export interface RunRow extends RunDefinitionColumns {
  workflow_id: string;
  workflow_name: string;
  workflow_version: number;
  status: WorkflowStatus;
  correlation_id: string | null;
  priority: number;
  parent_workflow_id: string | null;
  idempotency_key: string | null;
  create_time: number;
  update_time: number;
  end_time: number;
  record: Omit<RunRecord, 'workflowDefinition' | ColumnFields> & Partial<Pick<RunRecord, ColumnFields>>;
}

/** The `record` column's JSON for `run`, in the shape `mode` writes. */
export function runRecordJson(run: RunRecord, mode: RunRowsMode): string {
  if (mode === 'whole') return JSON.stringify(runRecordColumn(run));
  const {
    workflowDefinition: _definition,
    workflowId: _id,
    workflowName: _name,
    workflowVersion: _version,
    status: _status,
    correlationId: _correlation,
    priority: _priority,
    parentWorkflowId: _parent,
    idempotencyKey: _key,
    createTime: _created,
    updateTime: _updated,
    endTime: _ended,
    ...record
  } = run;
  return JSON.stringify(record);
}

/**
 * The run a row holds, with its definition. The columns first: a whole record holds the same
 * values again, and a compact one none of them.
 */
export function runFromPgRow(row: RunRow, definition: WorkflowDef): RunRecord {
  return {
    workflowId: row.workflow_id,
    workflowName: row.workflow_name,
    workflowVersion: row.workflow_version,
    status: row.status,
    priority: row.priority,
    createTime: row.create_time,
    updateTime: row.update_time,
    endTime: row.end_time,
    ...(row.correlation_id !== null && { correlationId: row.correlation_id }),
    ...(row.parent_workflow_id !== null && { parentWorkflowId: row.parent_workflow_id }),
    ...(row.idempotency_key !== null && { idempotencyKey: row.idempotency_key }),
    ...row.record,
    workflowDefinition: definition,
  };
}

/**
 * The shape the database is set to, once its migrations have run. `made`: this node has just
 * created the database, which no earlier release has met: `compact`. A database upgraded from an
 * earlier release stays `whole` until its operator switches (docs/operations.md, "Upgrading"); so
 * does a schema older than the setting (a test's shorter migration list).
 */
export function runRowsMode(
  client: Parameters<typeof databaseSetting>[0],
  made: boolean,
): Promise<RunRowsMode> {
  return databaseSetting(client, RUN_ROWS_SETTING, RUN_ROWS_MODES, {
    made,
    madeValue: 'compact',
    fallback: 'whole',
  });
}
