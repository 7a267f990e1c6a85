import { databaseSetting } from './store-settings.js';
import type { LatestByNameMode } from '../store/latest-by-name.js';

/**
 * PostgreSQL's setting for which `task_latest` rows a node writes (store/latest-by-name.ts): nodes
 * of an earlier release may share an upgraded database and write every task's row, so the rule
 * is the database's, read when the node starts, as `task_records` is.
 */

export const LATEST_BY_NAME_MODES: readonly LatestByNameMode[] = ['every-task', 'on-repeat'];

/** The setting's row in `store_settings`. */
export const LATEST_BY_NAME_SETTING = 'latest_by_name';

/**
 * The rule the database is set to, once its migrations have run. `made`: this node has just
 * created the database, which then writes rows only for runs that repeat a name. A database whose
 * schema predates the setting (a test's shorter migration list) writes them for every task.
 */
export function latestByNameMode(
  client: Parameters<typeof databaseSetting>[0],
  made: boolean,
): Promise<LatestByNameMode> {
  return databaseSetting(client, LATEST_BY_NAME_SETTING, LATEST_BY_NAME_MODES, {
    made,
    madeValue: 'on-repeat',
    fallback: 'every-task',
  });
}
