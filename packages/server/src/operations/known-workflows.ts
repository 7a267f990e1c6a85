import type { WorkflowDef } from '@baton/protocol';

import { allTasks, kindNameOf } from '../engine/index.js';
import type { Tx } from '../store/store.js';

/**
 * The registration check's view of which workflow definitions exist
 * (docs/design/definitions.md#registration-checks: sub-workflows named by a definition exist).
 * Loads only the names the definitions' SUB_WORKFLOW tasks use; the definitions being registered
 * count as existing (a list may bring a parent and its child together, and a definition may name
 * itself).
 */
export async function knownWorkflows(
  tx: Tx,
  defs: readonly WorkflowDef[],
): Promise<(name: string, version?: number) => boolean> {
  const known = new Set<string>();
  for (const def of defs) {
    if (typeof def.name !== 'string') continue;
    known.add(key(def.name));
    if (typeof def.version === 'number') known.add(key(def.name, def.version));
  }
  for (const def of defs) {
    for (const task of allTasks(def)) {
      if (kindNameOf(task) !== 'SUB_WORKFLOW') continue;
      const param = task.subWorkflowParam;
      if (typeof param !== 'object' || param === null || typeof param.name !== 'string') continue;
      const version = typeof param.version === 'number' && param.version > 0 ? param.version : undefined;
      if (known.has(key(param.name, version))) continue;
      const found = await tx.getWorkflowDef(param.name, version);
      if (found) known.add(key(param.name, version));
    }
  }
  return (name, version) => known.has(key(name, version));
}

function key(name: string, version?: number): string {
  return version === undefined ? name : `${name}@${version}`;
}
