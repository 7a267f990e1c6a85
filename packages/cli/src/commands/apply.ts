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
  refuseDuplicates(found.taskDefs.map((t) => ({ key: `task definition ${t.def.name}`, file: t.file })));
  refuseDuplicates(
    found.workflows.map((w) => ({
      key: `workflow ${w.def.name}${w.def.version === undefined ? '' : ` v${w.def.version}`}`,
      file: w.file,
    })),
  );
  return found;
}

/** The same definition in two places: which one was meant cannot be guessed. */
function refuseDuplicates(entries: Array<{ key: string; file: string }>): void {
  const first = new Map<string, string>();
  for (const { key, file } of entries) {
    const earlier = first.get(key);
    if (earlier !== undefined) throw new UsageError(`${key} is defined twice: in ${earlier} and in ${file}`);
    first.set(key, file);
  }
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

/** What applying a task definition would do, from what the server holds now. */
async function planTaskDef(client: BatonClient, def: TaskDef): Promise<Change> {
  const stored = await client.getTaskDef(def.name);
  return !stored ? 'created' : covers(stored, def) ? 'unchanged' : 'updated';
}

/**
 * What applying a workflow would do. Without a version the file describes the latest one: an
 * edit replaces it in place (runs keep the definition they started with).
 */
async function planWorkflow(
  client: BatonClient,
  def: WorkflowDef,
): Promise<{ change: Change; version: number }> {
  const stored = await client.getWorkflowDef(def.name, def.version);
  if (!stored) return { change: 'created', version: def.version ?? 1 };
  const version = stored.version ?? 1;
  return { change: covers(stored, { ...def, version }) ? 'unchanged' : 'updated', version };
}

/**
 * Looks at everything first, then changes: new task definitions in one registration, edited
 * ones one by one, then every new or edited workflow in one all-or-nothing PUT (so a workflow
 * and the sub-workflow it names go in together, and a refused one changes no workflow).
 */
async function apply(client: BatonClient, found: Found, dryRun: boolean): Promise<Applied[]> {
  const applied: Applied[] = [];
  const taskPlans = await Promise.all(found.taskDefs.map(({ def }) => planTaskDef(client, def)));
  const flowPlans = await Promise.all(found.workflows.map(({ def }) => planWorkflow(client, def)));
  found.taskDefs.forEach(({ def, file }, i) =>
    applied.push({ kind: 'taskdef', name: def.name, change: taskPlans[i]!, file }),
  );
  found.workflows.forEach(({ def, file }, i) => {
    const { change, version } = flowPlans[i]!;
    applied.push({ kind: 'workflow', name: def.name, version, change, file });
  });
  if (dryRun) return applied;
  // Task definitions first: a workflow's worker tasks must name registered types.
  const created = found.taskDefs.filter((_, i) => taskPlans[i] === 'created').map((t) => t.def);
  if (created.length > 0) await client.registerTaskDefs(created);
  for (const [i, { def }] of found.taskDefs.entries())
    if (taskPlans[i] === 'updated') await client.updateTaskDef(def);
  const flows = found.workflows
    .map(({ def }, i) => ({ def, plan: flowPlans[i]! }))
    .filter(({ plan }) => plan.change !== 'unchanged')
    .map(({ def, plan }) => ({ ...def, version: plan.version }));
  if (flows.length > 0) await client.putWorkflowDefs(flows);
  return applied;
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
      const applied = await apply(client, found, opts.dryRun === true);
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
