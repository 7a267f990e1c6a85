import type { WorkflowDef } from '@baton/protocol';

import { ByteBoundedCache } from '../store/byte-bounded-cache.js';
import { deepFreeze } from '../store/deep-freeze.js';

/**
 * A run's definition snapshot as SQLite reads it (its text, from `run_definitions`; sql.ts
 * `RUN_COLUMNS`), parsed once per distinct text and shared, frozen, by every run that holds it, as
 * PostgreSQL's nodes share theirs by digest (store-postgres/run-definitions.ts). Most runs of a
 * workflow hold one text, and every decision reads its run: each read parsed the whole definition
 * again. Keyed by the text itself, never by the snapshot's id: pruning deletes unused snapshots,
 * and SQLite may give a deleted row's id to the next one inserted (as it may an id a rolled-back
 * start took), so an id could name two texts in turn, while a text names one definition forever.
 * Bounded by bytes, as the other kept entries are; a definition too large to keep is parsed for
 * its read alone, frozen the same, so that no caller can come to depend on changing one.
 */
const BUDGET_BYTES = 16 * 1024 * 1024;
const MAX_DEFINITION_BYTES = 1024 * 1024;
/** What an entry holds besides its text (the key): the parsed tree, about twice the text. */
const TREE_FACTOR = 2;

const parsed = new ByteBoundedCache<{ readonly bytes: number; readonly def: WorkflowDef }>(
  BUDGET_BYTES,
  MAX_DEFINITION_BYTES,
);

/** The definition `text` holds: shared and frozen, from the cache or parsed now. */
export function sharedDefinition(text: string): WorkflowDef {
  const kept = parsed.get(text);
  if (kept !== undefined) return kept.def;
  const def = deepFreeze(JSON.parse(text) as WorkflowDef);
  parsed.set(text, { def, bytes: (1 + TREE_FACTOR) * text.length });
  return def;
}
