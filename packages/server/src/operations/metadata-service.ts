import type { BulkResponse, StoredTaskDef, TaskDef, ValidationError, WorkflowDef } from '@baton/protocol';

import { checkTaskDef, checkWorkflowDef, type CheckContext, type SystemCallChecks } from '../engine/index.js';
import { settleScripts, type AsyncScriptRunner } from '../scripting/async-scripts.js';
import { stampAuthorship } from '../auth/authorship.js';
import type { Clock } from '../clock.js';
import { MAX_VERSION, nextVersion } from '../bounds/ranges.js';
import { fail } from '../errors.js';
import { knownWorkflows } from './known-workflows.js';
import type { Store, StoredWorkflowDef, Tx } from '../store/store.js';
import { copyWith } from '../copy-with.js';

function prefixed(errors: ValidationError[], prefix: string): ValidationError[] {
  return errors.map((e) => copyWith(e, { path: e.path ? `${prefix}.${e.path}` : prefix }));
}

/** Definitions: workflow versions and task definitions (docs/design/definitions.md). */
export class MetadataService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly scripts: AsyncScriptRunner,
    /** The server's call handlers: system-call kinds without one are refused. */
    private readonly systemCalls?: SystemCallChecks,
    /** Checks that need the store beyond definitions (services, tools, connectors, operations named). */
    private readonly referenceChecks?: (tx: Tx, def: unknown) => Promise<ValidationError[]>,
  ) {}

  private async referenceErrors(tx: Tx, def: unknown): Promise<ValidationError[]> {
    return this.referenceChecks ? this.referenceChecks(tx, def) : [];
  }

  /**
   * The definition's problems. Its scripts are parsed and its jq filters compiled on script
   * threads (`settleScripts`), under the same caps as runs, so no check can hold the server.
   */
  private checkDef(
    def: WorkflowDef,
    taskDefNames: Set<string>,
    workflowExists: CheckContext['workflowExists'],
  ): Promise<ValidationError[]> {
    return settleScripts(this.scripts, (scripts) =>
      checkWorkflowDef(def, {
        taskDefNames,
        scripts,
        ...(workflowExists && { workflowExists }),
        ...(this.systemCalls && { systemCalls: this.systemCalls }),
      }),
    );
  }

  private async taskDefNames(tx: Tx): Promise<Set<string>> {
    return new Set((await tx.listTaskDefs()).map((d) => d.name));
  }

  private static failIfInvalid(errors: ValidationError[], what: string): void {
    if (errors.length > 0) {
      const first = errors[0];
      const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
      throw fail('DEFINITION_INVALID', { what, path: first?.path, problem: first?.message, more }, errors);
    }
  }

  /**
   * Registers one workflow definition. Without a version it gets the latest + 1 (1 for a new
   * name); an existing version is a conflict unless `overwrite` is set.
   */
  async registerWorkflow(def: WorkflowDef, overwrite: boolean, actor?: string): Promise<StoredWorkflowDef> {
    return this.store.transaction(async (tx) => {
      MetadataService.failIfInvalid(
        [
          ...(await this.checkDef(def, await this.taskDefNames(tx), await knownWorkflows(tx, [def]))),
          ...(await this.referenceErrors(tx, def)),
        ],
        'Workflow definition',
      );
      const now = this.clock.now();
      const version = def.version ?? nextVersion(await tx.latestWorkflowVersion(def.name));
      if (version === undefined) throw fail('DEFINITION_VERSION_LIMIT', { name: def.name, max: MAX_VERSION });
      const existing = actor === undefined ? undefined : await tx.getWorkflowDef(def.name, version);
      // The stamps are set here: the copy is a stored definition (its open fields hide that from the type).
      const stored = copyWith(stampAuthorship(def, actor, existing), {
        // Conductor's default: a definition registered without one is schema version 2.
        schemaVersion: def.schemaVersion ?? 2,
        version,
        createTime: now,
        updateTime: now,
      }) as StoredWorkflowDef;
      if (overwrite) {
        await tx.upsertWorkflowDef(stored);
      } else if (!(await tx.insertWorkflowDef(stored))) {
        throw fail('DEFINITION_VERSION_EXISTS', { name: def.name, version });
      }
      return (await tx.getWorkflowDef(def.name, version)) ?? stored;
    });
  }

  /** Upserts a list, all or nothing: one invalid definition rejects the whole request. */
  async upsertWorkflows(defs: WorkflowDef[], actor?: string): Promise<BulkResponse> {
    return this.store.transaction(async (tx) => {
      const names = await this.taskDefNames(tx);
      const workflowExists = await knownWorkflows(tx, defs);
      const references: ValidationError[] = [];
      for (const [i, def] of defs.entries()) {
        references.push(...prefixed(await this.referenceErrors(tx, def), `[${i}]`));
      }
      const problems: ValidationError[] = [];
      for (const [i, def] of defs.entries()) {
        problems.push(...prefixed(await this.checkDef(def, names, workflowExists), `[${i}]`));
      }
      MetadataService.failIfInvalid([...problems, ...references], 'Workflow definitions');
      const now = this.clock.now();
      const result: BulkResponse = { bulkSuccessfulResults: [], bulkErrorResults: {} };
      for (const def of defs) {
        const version = def.version ?? (await tx.latestWorkflowVersion(def.name)) ?? 1;
        const existing = actor === undefined ? undefined : await tx.getWorkflowDef(def.name, version);
        const stamped = stampAuthorship(def, actor, existing);
        const schemaVersion = def.schemaVersion ?? 2;
        await tx.upsertWorkflowDef(
          copyWith(stamped, {
            schemaVersion,
            version,
            createTime: now,
            updateTime: now,
          }) as StoredWorkflowDef,
        );
        result.bulkSuccessfulResults.push(`${def.name}.${version}`);
      }
      return result;
    });
  }

  /**
   * Checks an inline definition a start request carries (`POST /api/workflow` with
   * `workflowDef`) as registration checks one; problems are 400 naming `body.workflowDef.<path>`.
   */
  async checkInlineWorkflow(def: WorkflowDef): Promise<void> {
    const [names, workflowExists, references] = await this.store.read(
      async (tx) =>
        [
          await this.taskDefNames(tx),
          await knownWorkflows(tx, [def]),
          await this.referenceErrors(tx, def),
        ] as const,
    );
    MetadataService.failIfInvalid(
      prefixed([...(await this.checkDef(def, names, workflowExists)), ...references], 'body.workflowDef'),
      'Inline workflow definition',
    );
  }

  /** Checks a definition without storing it. */
  async validateWorkflow(def: WorkflowDef): Promise<void> {
    const [names, workflowExists, references] = await this.store.read(
      async (tx) =>
        [
          await this.taskDefNames(tx),
          await knownWorkflows(tx, [def]),
          await this.referenceErrors(tx, def),
        ] as const,
    );
    MetadataService.failIfInvalid(
      [...(await this.checkDef(def, names, workflowExists)), ...references],
      'Workflow definition',
    );
  }

  async getWorkflow(name: string, version?: number): Promise<StoredWorkflowDef> {
    const def = await this.store.read((tx) => tx.getWorkflowDef(name, version));
    if (!def) {
      throw version === undefined
        ? fail('DEFINITION_NOT_FOUND', { name: name })
        : fail('DEFINITION_VERSION_NOT_FOUND', { name: name, version: version });
    }
    return def;
  }

  listWorkflows(): Promise<StoredWorkflowDef[]> {
    return this.store.read((tx) => tx.listWorkflowDefs());
  }

  /** Removes one version; refused while any run (open or ended) of it exists. */
  async deleteWorkflow(name: string, version: number): Promise<void> {
    await this.store.transaction(async (tx) => {
      if (!(await tx.getWorkflowDef(name, version))) {
        throw fail('DEFINITION_REMOVAL_NOT_FOUND', { name, version });
      }
      const runs = await tx.countRunsOfVersion(name, version);
      if (runs > 0) {
        throw fail('DEFINITION_VERSION_IN_USE', {
          name,
          version,
          runs,
          removeRoute: 'DELETE /api/workflow/{id}/remove',
        });
      }
      await tx.deleteWorkflowDef(name, version);
    });
  }

  /** Registers (inserts or replaces) task definitions; each creates its worker queue. */
  async registerTaskDefs(defs: TaskDef[], actor?: string): Promise<StoredTaskDef[]> {
    MetadataService.failIfInvalid(
      defs.flatMap((def, i) => prefixed(checkTaskDef(def), `[${i}]`)),
      'Task definitions',
    );
    return this.store.transaction(async (tx) => {
      const now = this.clock.now();
      const existing =
        actor === undefined
          ? new Map<string, StoredTaskDef>()
          : await tx.getTaskDefs(defs.map((d) => d.name));
      for (const def of defs) {
        const stamped = stampAuthorship(def, actor, existing.get(def.name));
        await tx.upsertTaskDef(copyWith(stamped, { createTime: now, updateTime: now }) as StoredTaskDef);
      }
      await tx.ensureQueues(
        defs.map((d) => d.name),
        now,
      );
      return [...(await tx.getTaskDefs(defs.map((d) => d.name))).values()];
    });
  }

  /** Checks a task definition without storing it (the UI's editor calls this as one types). */
  validateTaskDef(def: TaskDef): void {
    MetadataService.failIfInvalid(checkTaskDef(def), 'Task definition');
  }

  /** Updates an existing task definition (Conductor: 404 when it does not exist). */
  async updateTaskDef(def: TaskDef, actor?: string): Promise<StoredTaskDef> {
    MetadataService.failIfInvalid(checkTaskDef(def), 'Task definition');
    return this.store.transaction(async (tx) => {
      const existing = await tx.getTaskDef(def.name);
      if (!existing) throw fail('TASK_DEF_UPDATE_NOT_FOUND', { name: def.name });
      const now = this.clock.now();
      await tx.upsertTaskDef(
        copyWith(stampAuthorship(def, actor, existing), {
          createTime: now,
          updateTime: now,
        }) as StoredTaskDef,
      );
      await tx.ensureQueues([def.name], now);
      return (await tx.getTaskDef(def.name)) as StoredTaskDef;
    });
  }

  async getTaskDef(name: string): Promise<StoredTaskDef> {
    const def = await this.store.read((tx) => tx.getTaskDef(name));
    if (!def) throw fail('TASK_DEF_NOT_FOUND', { name });
    return def;
  }

  listTaskDefs(): Promise<StoredTaskDef[]> {
    return this.store.read((tx) => tx.listTaskDefs());
  }

  async deleteTaskDef(name: string): Promise<void> {
    const deleted = await this.store.transaction((tx) => tx.deleteTaskDef(name));
    if (!deleted) throw fail('TASK_DEF_REMOVAL_NOT_FOUND', { name });
  }
}
