/* eslint-disable @typescript-eslint/require-await -- better-sqlite3 is synchronous; the port is async. */
import type { StoredTaskDef, TaskDef, WorkflowDef } from '@baton/protocol';

import { definitionColumn, taskDefFromColumns, workflowDefFromColumns } from '../store/sql-common.js';
import type { StoredWorkflowDef } from '../store/store.js';
import type { SqliteConnection } from './connection.js';
import { oneOf, parse } from './sql.js';
import { isStorableVersion } from '../bounds/ranges.js';

/**
 * SQLite statements of workflow and task definitions (`SqliteTx` delegates here). On PostgreSQL
 * the statements are in sql.ts and the methods stay on `PgTx`, which reads task definitions
 * through the node's cache.
 */

interface WorkflowDefRow {
  definition: string;
  version: number;
  create_time: number;
  update_time: number;
}
interface TaskDefRow {
  definition: string;
  create_time: number;
  update_time: number;
}
const WF_COLUMNS = 'definition, version, create_time, update_time';

function workflowDef(row: WorkflowDefRow): StoredWorkflowDef {
  return workflowDefFromColumns(
    parse<WorkflowDef>(row.definition),
    row.version,
    row.create_time,
    row.update_time,
  );
}
function taskDef(row: TaskDefRow): StoredTaskDef {
  return taskDefFromColumns(parse<TaskDef>(row.definition), row.create_time, row.update_time);
}

// --- workflow definitions

export async function getWorkflowDef(
  c: SqliteConnection,
  name: string,
  version?: number,
): Promise<StoredWorkflowDef | undefined> {
  if (version !== undefined && !isStorableVersion(version)) return undefined;
  const row =
    version === undefined
      ? c.get<WorkflowDefRow>(
          `SELECT ${WF_COLUMNS} FROM workflow_defs WHERE name = ? ORDER BY version DESC LIMIT 1`,
          name,
        )
      : c.get<WorkflowDefRow>(
          `SELECT ${WF_COLUMNS} FROM workflow_defs WHERE name = ? AND version = ?`,
          name,
          version,
        );
  return row && workflowDef(row);
}

export async function listWorkflowDefs(c: SqliteConnection): Promise<StoredWorkflowDef[]> {
  return c
    .all<WorkflowDefRow>(`SELECT ${WF_COLUMNS} FROM workflow_defs ORDER BY name, version`)
    .map(workflowDef);
}

export async function latestWorkflowVersion(c: SqliteConnection, name: string): Promise<number | undefined> {
  const row = c.get<{ v: number | null }>('SELECT max(version) AS v FROM workflow_defs WHERE name = ?', name);
  return row?.v ?? undefined;
}

export async function insertWorkflowDef(c: SqliteConnection, def: StoredWorkflowDef): Promise<boolean> {
  const result = c.run(
    `INSERT INTO workflow_defs (name, version, definition, create_time, update_time) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (name, version) DO NOTHING`,
    def.name,
    def.version,
    JSON.stringify(definitionColumn(def)),
    def.createTime,
    def.updateTime,
  );
  return result.changes === 1;
}

export async function upsertWorkflowDef(c: SqliteConnection, def: StoredWorkflowDef): Promise<void> {
  c.run(
    `INSERT INTO workflow_defs (name, version, definition, create_time, update_time) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (name, version) DO UPDATE SET definition = excluded.definition, update_time = excluded.update_time`,
    def.name,
    def.version,
    JSON.stringify(definitionColumn(def)),
    def.createTime,
    def.updateTime,
  );
}

export async function deleteWorkflowDef(
  c: SqliteConnection,
  name: string,
  version: number,
): Promise<boolean> {
  if (!isStorableVersion(version)) return false;
  return c.run('DELETE FROM workflow_defs WHERE name = ? AND version = ?', name, version).changes > 0;
}

// --- task definitions

export async function getTaskDef(c: SqliteConnection, name: string): Promise<StoredTaskDef | undefined> {
  const row = c.get<TaskDefRow>(
    'SELECT definition, create_time, update_time FROM task_defs WHERE name = ?',
    name,
  );
  return row && taskDef(row);
}

export async function getTaskDefs(
  c: SqliteConnection,
  names: readonly string[],
): Promise<Map<string, StoredTaskDef>> {
  const out = new Map<string, StoredTaskDef>();
  if (names.length === 0) return out;
  const named = oneOf('name', names);
  const rows = c.all<TaskDefRow & { name: string }>(
    `SELECT name, definition, create_time, update_time FROM task_defs WHERE ${named.sql}`,
    named.param,
  );
  for (const row of rows) out.set(row.name, taskDef(row));
  return out;
}

export async function listTaskDefs(c: SqliteConnection): Promise<StoredTaskDef[]> {
  return c
    .all<TaskDefRow>('SELECT definition, create_time, update_time FROM task_defs ORDER BY name')
    .map(taskDef);
}

export async function upsertTaskDef(
  c: SqliteConnection,
  def: TaskDef & { createTime: number; updateTime: number },
): Promise<void> {
  c.run(
    `INSERT INTO task_defs (name, definition, create_time, update_time) VALUES (?, ?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET definition = excluded.definition, update_time = excluded.update_time`,
    def.name,
    JSON.stringify(definitionColumn(def)),
    def.createTime,
    def.updateTime,
  );
}

export async function deleteTaskDef(c: SqliteConnection, name: string): Promise<boolean> {
  return c.run('DELETE FROM task_defs WHERE name = ?', name).changes > 0;
}
