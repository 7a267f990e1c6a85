import type { StoredTaskDef, TaskDef, WorkflowDef } from '@baton/protocol';

import type { PortAccess } from './access.js';

/** A stored workflow definition with the times set by the server. */
export type StoredWorkflowDef = WorkflowDef & { version: number; createTime: number; updateTime: number };

/** Workflow and task definitions. */
export interface DefinitionsPort {
  // --- workflow definitions
  getWorkflowDef(name: string, version?: number): Promise<StoredWorkflowDef | undefined>;
  listWorkflowDefs(): Promise<StoredWorkflowDef[]>;
  latestWorkflowVersion(name: string): Promise<number | undefined>;
  /** Inserts; returns false (and changes nothing) when that name and version exist. */
  insertWorkflowDef(def: StoredWorkflowDef): Promise<boolean>;
  /** Inserts or replaces that name and version (createTime of an existing row is kept). */
  upsertWorkflowDef(def: StoredWorkflowDef): Promise<void>;
  deleteWorkflowDef(name: string, version: number): Promise<boolean>;

  // --- task definitions
  getTaskDef(name: string): Promise<StoredTaskDef | undefined>;
  getTaskDefs(names: readonly string[]): Promise<Map<string, StoredTaskDef>>;
  listTaskDefs(): Promise<StoredTaskDef[]>;
  /** Inserts or replaces (createTime of an existing row is kept). */
  upsertTaskDef(def: TaskDef & { createTime: number; updateTime: number }): Promise<void>;
  deleteTaskDef(name: string): Promise<boolean>;
}

/** Which `DefinitionsPort` methods write (refused inside `read()`); every method is checked (tx-access.ts). */
export const DEFINITIONS_ACCESS = {
  getWorkflowDef: 'read',
  listWorkflowDefs: 'read',
  latestWorkflowVersion: 'read',
  insertWorkflowDef: 'write',
  upsertWorkflowDef: 'write',
  deleteWorkflowDef: 'write',
  getTaskDef: 'read',
  getTaskDefs: 'read',
  listTaskDefs: 'read',
  upsertTaskDef: 'write',
  deleteTaskDef: 'write',
} as const satisfies PortAccess<DefinitionsPort>;
