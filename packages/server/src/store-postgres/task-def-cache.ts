import type { StoredTaskDef } from '@baton/protocol';

/**
 * Task definitions this node has read, valid for one value of the database's change counter
 * (`task_defs_version`, bumped by a trigger on every change to `task_defs`). A transaction that
 * locks a run reads the counter with the lock; while it equals the cache's, the definitions
 * here are exactly what a read would answer, so a decision reads none. A new value empties the
 * cache. A transaction that changes definitions itself reads them from the database.
 */
export class TaskDefCache {
  private version = -1;
  /** null: asked for and not registered. */
  private defs = new Map<string, StoredTaskDef | null>();

  /** The cached definitions of `names` at `version`, and the names it does not know. */
  lookup(
    version: number,
    names: readonly string[],
  ): { found: Map<string, StoredTaskDef>; missing: string[] } {
    if (version !== this.version) {
      this.version = version;
      this.defs = new Map();
    }
    const found = new Map<string, StoredTaskDef>();
    const missing: string[] = [];
    for (const name of names) {
      const def = this.defs.get(name);
      if (def === undefined) missing.push(name);
      else if (def !== null) found.set(name, def);
    }
    return { found, missing };
  }

  /** Definitions read at `version` (`asked` names absent from `read` are not registered). */
  remember(version: number, asked: readonly string[], read: ReadonlyMap<string, StoredTaskDef>): void {
    if (version !== this.version) return;
    for (const name of asked) this.defs.set(name, read.get(name) ?? null);
  }
}
