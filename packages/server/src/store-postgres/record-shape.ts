import type { TaskRecord } from '@baton/protocol';

import { PG_CLEAR_FIELDS, storedTaskParts } from '../store/task-record-storage.js';
import { databaseSetting } from './store-settings.js';

/**
 * The shape a node writes task rows in on PostgreSQL (schema step `task-record-shape`):
 *
 * - `whole`: `record` holds the whole task, as every earlier release writes and reads it;
 * - `packed`: `record` keeps in clear only what SQL reads from it (`PG_CLEAR_FIELDS`), and
 *   `packed` holds the rest, compressed (store/record-codec.ts); about a quarter of the bytes.
 *
 * Both read the same (task-rows.ts), so a database may hold rows of both. The setting is the
 * database's (`store_settings.task_records`), read by each node when it starts: a database the step
 * creates is set to `packed` by the node that creates it; an upgraded one stays `whole`, because
 * nodes of the earlier release may still run on it and cannot read a packed row, until its
 * operator switches it once every node runs this release (docs/operations.md, "Upgrading").
 */
export type TaskRecordShape = 'whole' | 'packed';

export const TASK_RECORD_SHAPES: readonly TaskRecordShape[] = ['whole', 'packed'];

/** The setting's row in `store_settings`. */
export const SHAPE_SETTING = 'task_records';

export function isTaskRecordShape(value: unknown): value is TaskRecordShape {
  return typeof value === 'string' && (TASK_RECORD_SHAPES as readonly string[]).includes(value);
}

/**
 * The JSON array the task writes read their rows from (sql.ts `insertTasks`, `updateTasks`,
 * `updateOpenTasks`): each element carries the columns' fields; a packed one adds `r`, the clear
 * part of its record, and `p`, the packed rest in base64. A whole one is the task itself, which
 * the statements store as the record.
 */
export function taskRowsJson(tasks: readonly TaskRecord[], shape: TaskRecordShape): string {
  if (shape === 'whole') return JSON.stringify(tasks);
  // Written out by hand around the clear part's text, which packing has made already.
  const rows = tasks.map((task) => {
    const { record, packed } = storedTaskParts(task, PG_CLEAR_FIELDS);
    return (
      `{"taskId":${JSON.stringify(task.taskId)},"workflowInstanceId":${JSON.stringify(task.workflowInstanceId)}` +
      `,"seq":${JSON.stringify(task.seq)},"referenceTaskName":${JSON.stringify(task.referenceTaskName)}` +
      `,"taskType":${JSON.stringify(task.taskType)},"status":${JSON.stringify(task.status)}` +
      `,"updateTime":${JSON.stringify(task.updateTime)},"r":${record},"p":"${packed.toString('base64')}"}`
    );
  });
  return `[${rows.join(',')}]`;
}

/**
 * The shape the database is set to, once its migrations have run. `made`: this node has just
 * created the database, which then packs from its first row. A database whose schema predates the
 * setting (a test's shorter migration list) writes whole records.
 */
export function taskRecordShape(
  client: Parameters<typeof databaseSetting>[0],
  made: boolean,
): Promise<TaskRecordShape> {
  return databaseSetting(client, SHAPE_SETTING, TASK_RECORD_SHAPES, {
    made,
    madeValue: 'packed',
    fallback: 'whole',
  });
}
