import type { BatonClient, TaskDef, WorkflowDef } from '@baton/sdk';
import type { Command } from 'commander';

import { definitionFiles, readDocument } from '../files.js';
import { paint, print, printJson } from '../output.js';
import { clientFrom, UsageError, type GlobalOptions } from '../settings.js';

export type Change = 'created' | 'updated' | 'unchanged';
interface Applied {
  kind: 'taskdef' | 'workflow';
  name: string;
  version?: number;
  change: Change;
  file: string;
}

interface Found {
  taskDefs: Array<{ def: TaskDef; file: string }>;
  workflows: Array<{ def: WorkflowDef; file: string }>;
}

/** Sorts each document of each file into task definitions and workflows (a file may hold a list). */
export function collect(files: string[]): Found {
  const found: Found = { taskDefs: [], workflows: [] };
  for (const file of files) {
    const doc = readDocument(file);
    const items = Array.isArray(doc) ? (doc as unknown[]) : [doc];
    for (const [i, item] of items.entries()) {
      const where = items.length > 1 ? `${file}[${i}]` : file;
      if (
        typeof item !== 'object' ||
        item === null ||
        typeof (item as { name?: unknown }).name !== 'string'
      ) {
        throw new UsageError(`${where}: expected a task or workflow definition (an object with a name)`);
      }
      const obj = item as Record<string, unknown>;
      if (Array.isArray(obj.tasks)) found.workflows.push({ def: obj as unknown as WorkflowDef, file: where });
      else if ('cronExpression' in obj || 'actions' in obj) {
        throw new UsageError(
          `${where}: schedules and event handlers cannot be applied by this version of baton`,
        );
      } else found.taskDefs.push({ def: obj as unknown as TaskDef, file: where });
    }
  }
  return found;
}

/** True when every field the file sets has the same value on the server (the server adds defaults). */
export function covers(stored: unknown, wanted: unknown): boolean {
  if (Array.isArray(wanted)) {
    return (
      Array.isArray(stored) && stored.length === wanted.length && wanted.every((w, i) => covers(stored[i], w))
    );
  }
  if (typeof wanted === 'object' && wanted !== null) {
    if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) return false;
    return Object.entries(wanted).every(
      ([k, v]) => v === undefined || covers((stored as Record<string, unknown>)[k], v),
    );
  }
  return stored === wanted;
}

async function applyTaskDef(client: BatonClient, def: TaskDef): Promise<Change> {
  const stored = await client.getTaskDef(def.name);
  if (!stored) {
    await client.registerTaskDefs([def]);
    return 'created';
  }
  if (covers(stored, def)) return 'unchanged';
  await client.updateTaskDef(def);
  return 'updated';
}

async function applyWorkflow(
  client: BatonClient,
  def: WorkflowDef,
): Promise<{ change: Change; version: number }> {
  const stored = await client.getWorkflowDef(def.name, def.version);
  if (!stored) {
    const version = def.version ?? 1;
    await client.putWorkflowDefs([{ ...def, version }]);
    return { change: 'created', version };
  }
  // Without a version the file describes the latest one: an edit replaces it in place (runs
  // keep the definition they started with).
  const version = stored.version ?? 1;
  if (covers(stored, { ...def, version })) return { change: 'unchanged', version };
  await client.putWorkflowDefs([{ ...def, version }]);
  return { change: 'updated', version };
}

export function applyCommand(program: Command): void {
  program
    .command('apply')
    .description('register task definitions, then workflows, from JSON or YAML files; says what changed')
    .requiredOption('-f, --file <paths...>', 'files or directories (every .json, .yaml, .yml inside)')
    .option('--dry-run', 'say what would change without changing anything')
    .action(async (opts: { file: string[]; dryRun?: boolean }, cmd: Command) => {
      const globals = cmd.optsWithGlobals<GlobalOptions>();
      const client = clientFrom(globals);
      const files = definitionFiles(opts.file);
      const found = collect(files);
      if (found.taskDefs.length + found.workflows.length === 0) {
        throw new UsageError(`no definitions found in ${opts.file.join(', ')}`);
      }
      const applied: Applied[] = [];
      // Task definitions first: a workflow's worker tasks must name registered types.
      for (const { def, file } of found.taskDefs) {
        const change = opts.dryRun ? await wouldTaskDef(client, def) : await applyTaskDef(client, def);
        applied.push({ kind: 'taskdef', name: def.name, change, file });
      }
      for (const { def, file } of found.workflows) {
        const { change, version } = opts.dryRun
          ? await wouldWorkflow(client, def)
          : await applyWorkflow(client, def);
        applied.push({ kind: 'workflow', name: def.name, version, change, file });
      }
      if (globals.json) return printJson(applied);
      const mark = {
        created: paint('+ created  ', 'green'),
        updated: paint('~ updated  ', 'yellow'),
        unchanged: paint('= unchanged', 'grey'),
      };
      for (const a of applied) {
        print(
          `${mark[a.change]} ${a.kind === 'taskdef' ? 'task definition' : 'workflow'} ${a.name}${a.version !== undefined ? ` v${a.version}` : ''}  ${paint(a.file, 'grey')}`,
        );
      }
      const count = (c: Change) => applied.filter((a) => a.change === c).length;
      print(
        `${opts.dryRun ? 'would apply' : 'applied'}: ${count('created')} created, ${count('updated')} updated, ${count('unchanged')} unchanged`,
      );
    });
}

async function wouldTaskDef(client: BatonClient, def: TaskDef): Promise<Change> {
  const stored = await client.getTaskDef(def.name);
  return !stored ? 'created' : covers(stored, def) ? 'unchanged' : 'updated';
}

async function wouldWorkflow(
  client: BatonClient,
  def: WorkflowDef,
): Promise<{ change: Change; version: number }> {
  const stored = await client.getWorkflowDef(def.name, def.version);
  if (!stored) return { change: 'created', version: def.version ?? 1 };
  const version = stored.version ?? 1;
  return { change: covers(stored, { ...def, version }) ? 'unchanged' : 'updated', version };
}
