import type { WorkflowDef } from '@baton/protocol';

import { allTasks, kindNameOf } from '../engine/index.js';
import type { Tx } from '../store/store.js';

const REF = /\$\{\s*instructions\.([A-Za-z0-9_-]+)\s*\}/g;
const CACHE_LIMIT = 1000;

/** Names of instruction texts a definition uses, cached per definition version (a decision must not rescan it). */
const namesByDefinition = new Map<string, readonly string[]>();

/**
 * The instruction names a definition reads: every `${instructions.NAME}` anywhere in it, and
 * every HUMAN task's `instructions` field (with or without `${…}`).
 */
export function instructionNames(def: WorkflowDef): readonly string[] {
  const key = `${def.name}\u0000${def.version ?? 0}\u0000${def.updateTime ?? def.createTime ?? ''}`;
  const cached = namesByDefinition.get(key);
  if (cached) return cached;
  const names = new Set<string>();
  const text = JSON.stringify(def);
  if (text.includes('instructions')) {
    for (const match of text.matchAll(REF)) if (match[1] !== undefined) names.add(match[1]);
    for (const task of allTasks(def)) {
      if (kindNameOf(task) !== 'HUMAN') continue;
      const field: unknown = task.instructions ?? task.inputParameters?.instructions;
      if (typeof field === 'string' && field !== '' && !field.includes('${')) names.add(field);
    }
  }
  const list = [...names].sort();
  if (namesByDefinition.size >= CACHE_LIMIT) namesByDefinition.clear();
  namesByDefinition.set(key, list);
  return list;
}

/** The latest text of each instruction the definition uses; undefined when it uses none. */
export async function loadInstructions(
  tx: Tx,
  def: WorkflowDef,
): Promise<Record<string, string> | undefined> {
  const names = instructionNames(def);
  if (names.length === 0) return undefined;
  const texts: Record<string, string> = {};
  for (const name of names) {
    const row = await tx.events.getInstruction(name);
    if (row) texts[name] = row.text;
  }
  return texts;
}
