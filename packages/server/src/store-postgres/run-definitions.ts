import { createHash } from 'node:crypto';

import type { WorkflowDef } from '@baton/protocol';

import { ByteBoundedCache } from '../store/byte-bounded-cache.js';
import { deepFreeze } from '../store/deep-freeze.js';

/**
 * A run's definition snapshot, kept once per distinct text in `run_definitions` on a database
 * whose run rows are compact (run-rows.ts), keyed by the SHA-256 of its JSON text, the run row
 * holding only that digest. Most runs of a workflow share one snapshot, so a run row is a few
 * hundred bytes smaller (twice, as it is written at the start and at the end) and a run lock
 * answers 32 bytes where it answered the whole definition.
 */

/** The columns a run's definition is read from: one of the two is set (the digest in hex). */
export interface RunDefinitionColumns {
  definition: WorkflowDef | null;
  definition_digest: string | null;
}

/** A run row as far as its definition goes: the columns, and the run's id to name in an error. */
type RunDefinitionRow = RunDefinitionColumns & { workflow_id: string };

/**
 * The key of a snapshot in `run_definitions`, in hex: statements carry it as text
 * (`decode($n, 'hex')`), since a transaction's writes are sent as SQL literals (write-behind.ts).
 */
export function definitionDigest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * The advisory lock that keeps a start and a pruning pass apart on one snapshot: `fn` one of
 * PostgreSQL's `pg_*advisory_xact_lock*` functions, `hex` the SQL of the digest in hex. A start
 * takes it shared before it probes for the snapshot, so starts never wait on one another; a
 * pruning pass tries it alone and leaves a snapshot whose lock it cannot get, and checks that no
 * run refers to the snapshot only once it holds the lock, in a statement of its own (a newer
 * snapshot of the database, under READ COMMITTED). So a start either finished before that check,
 * and its run keeps the snapshot, or waits for the pass to commit and then stores the snapshot again.
 * The key is a namespace of the run definitions and the digest's first 32 bits: two digests that
 * share them only keep each other's pass from deleting at the same time.
 */
export function definitionLock(fn: string, hex: string): string {
  return `${fn}(${DEFINITION_LOCK_SPACE}, ('x' || substr(${hex}, 1, 8))::bit(32)::int)`;
}

/** The first key of the run definitions' advisory locks ('btnd'); the migration lock uses the one-key form. */
const DEFINITION_LOCK_SPACE = 0x62746e64;

/**
 * The snapshots this node has read, by digest. A digest names one text forever, so an
 * entry never goes stale; the bound only keeps a node that starts many one-off definitions
 * (inline in their start requests) from holding all of them. It counts their size, not their
 * number: a definition may be megabytes (up to `BATON_MAX_BODY_BYTES` inline), and a thousand of
 * those were gigabytes. Entries are frozen: every run of a workflow shares one, and none may
 * change it for the others.
 */
export class RunDefinitionCache {
  private readonly byDigest: ByteBoundedCache<{ readonly bytes: number; readonly def: WorkflowDef }>;

  constructor({
    budgetBytes = 32 * 1024 * 1024,
    maxDefinitionBytes = 4 * 1024 * 1024,
  }: { budgetBytes?: number; maxDefinitionBytes?: number } = {}) {
    this.byDigest = new ByteBoundedCache(budgetBytes, maxDefinitionBytes);
  }

  /** The definition kept for `key`, now the last to be pushed out. */
  get(key: string): WorkflowDef | undefined {
    return this.byDigest.get(key)?.def;
  }

  remember(key: string, def: WorkflowDef): WorkflowDef {
    const frozen = deepFreeze(def);
    this.byDigest.set(key, { def: frozen, bytes: definitionBytes(frozen) });
    return frozen;
  }

  /**
   * The definition of each of `rows`: from the row, or shared, from this cache or else `read` in
   * one call for every digest it has not met. A digest that `read` does not find fails the read,
   * naming the run.
   */
  async resolve(
    rows: readonly RunDefinitionRow[],
    read: (digests: string[]) => Promise<ReadonlyArray<{ digest: string; definition: WorkflowDef }>>,
  ): Promise<(row: RunDefinitionRow) => WorkflowDef> {
    // Each digest looked up once here: the answer below reads only this page's own map.
    const shared = new Map<string, WorkflowDef | undefined>();
    for (const r of rows)
      if (r.definition === null && r.definition_digest !== null && !shared.has(r.definition_digest))
        shared.set(r.definition_digest, this.get(r.definition_digest));
    const unknown = [...shared].flatMap(([digest, def]) => (def === undefined ? [digest] : []));
    if (unknown.length > 0)
      for (const d of await read(unknown)) shared.set(d.digest, this.remember(d.digest, d.definition));
    return (r) => {
      const digest = r.definition_digest;
      const definition = r.definition ?? (digest === null ? undefined : shared.get(digest));
      if (definition === undefined)
        throw new Error(
          `run ${r.workflow_id}: its definition ${digest ?? '(none)'} is not in run_definitions`,
        );
      return definition;
    };
  }
}

/** About the memory a parsed definition holds: twice its JSON text (read once, when first met). */
export function definitionBytes(def: WorkflowDef): number {
  return 2 * JSON.stringify(def).length;
}
