import {
  BatonApiError,
  type BatonClient,
  type EventHandler,
  type TaskDef,
  type WorkflowDef,
  type WorkflowSchedule,
} from '@baton/sdk';
import type { Command } from 'commander';

import { definitionFiles, readDocument } from '../files.js';
import { locateInFile } from '../locate.js';
import { paint, print, printJson } from '../output.js';
import { clientFrom, UsageError, type GlobalOptions } from '../settings.js';

export type Change = 'created' | 'updated' | 'unchanged';
export type Kind = 'taskdef' | 'workflow' | 'schedule' | 'eventHandler';
const KIND_LABEL: Record<Kind, string> = {
  taskdef: 'task definition',
  workflow: 'workflow',
  schedule: 'schedule',
  eventHandler: 'event handler',
};
interface Applied {
  kind: Kind;
  name: string;
  version?: number;
  change: Change;
  file: string;
}

/** Where a definition came from: `file` as shown (`x.yaml[1]` for an item of a list), `path` and `index` to find it. */
interface Source {
  file: string;
  path: string;
  index?: number;
}

interface Found {
  taskDefs: Array<{ def: TaskDef } & Source>;
  workflows: Array<{ def: WorkflowDef } & Source>;
  schedules: Array<{ def: WorkflowSchedule } & Source>;
  handlers: Array<{ def: EventHandler } & Source>;
}

/**
 * A refusal of definitions sent together (`[1].tasks[1].name`: the request's second item) or
 * alone (`tasks[1].name`), said against the files: each validation error's path becomes the
 * file, the line and column, and the path inside that document.
 */
async function inFiles<T>(sources: readonly Source[], many: boolean, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (err) {
    if (!(err instanceof BatonApiError) || typeof err.body !== 'object') throw err;
    // A request that may be one definition or a list fails both ways: the alternative's
    // complaints about the whole body ("must be object") say nothing the specific ones do not.
    const all = err.body.validationErrors ?? [];
    const specific = all.filter((v) => v.path !== 'body' && v.path !== '');
    if (specific.length > 0 && specific.length < all.length) err.body.validationErrors = specific;
    const firstPath = err.body.validationErrors?.[0]?.path;
    // The headline quotes the first error by its place in the request: the list below says it better.
    if (firstPath !== undefined) {
      const cut = err.message.indexOf(`: ${firstPath}`);
      if (cut > 0) err.message = err.message.slice(0, cut);
      else if (err.message.startsWith(firstPath)) err.message = 'the definitions failed validation';
    }
    for (const v of err.body.validationErrors ?? []) {
      const match = many ? /^(?:body)?\[(\d+)\]\.?(.*)$/.exec(v.path) : /^(?:body\.?)?(.*)$/.exec(v.path);
      if (!match) continue;
      const source = many ? sources[Number(match[1])] : sources[0];
      const inner = (many ? match[2] : match[1]) ?? '';
      if (!source) continue;
      const place = locateInFile(source.path, inner, source.index);
      const at = place ? `:${place.line}:${place.column}` : '';
      (v as { path: string }).path = `${source.file}${at} ${inner || '(the whole definition)'}`;
    }
    throw err;
  }
}

/**
 * What a document is, by its shape (the fields Conductor's own JSON has, so files exported from
 * Conductor apply as they are): `tasks` makes a workflow, `cronExpression` or
 * `startWorkflowRequest` a schedule, `event` or `actions` an event handler, anything else named
 * a task definition.
 */
export function kindOf(doc: Record<string, unknown>): Kind {
  if (Array.isArray(doc.tasks)) return 'workflow';
  if ('cronExpression' in doc || 'startWorkflowRequest' in doc) return 'schedule';
  if ('actions' in doc || 'event' in doc) return 'eventHandler';
  return 'taskdef';
}

/** Sorts each document of each file by what it holds (a file may hold a list). */
export function collect(files: string[]): Found {
  const found: Found = { taskDefs: [], workflows: [], schedules: [], handlers: [] };
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
        throw new UsageError(
          `${where}: expected a task definition, workflow, schedule or event handler (an object with a name)`,
        );
      }
      const obj = item as Record<string, unknown>;
      const kind = kindOf(obj);
      const source: Source = { file: where, path: file, ...(Array.isArray(doc) && { index: i }) };
      if (kind === 'workflow') found.workflows.push({ def: obj as unknown as WorkflowDef, ...source });
      else if (kind === 'schedule')
        found.schedules.push({ def: obj as unknown as WorkflowSchedule, ...source });
      else if (kind === 'eventHandler')
        found.handlers.push({ def: obj as unknown as EventHandler, ...source });
      else found.taskDefs.push({ def: obj as unknown as TaskDef, ...source });
    }
  }
  refuseDuplicates(found.taskDefs.map((t) => ({ key: `task definition ${t.def.name}`, file: t.file })));
  refuseDuplicates(
    found.workflows.map((w) => ({
      key: `workflow ${w.def.name}${w.def.version === undefined ? '' : ` v${w.def.version}`}`,
      file: w.file,
    })),
  );
  refuseDuplicates(found.schedules.map((x) => ({ key: `schedule ${x.def.name}`, file: x.file })));
  refuseDuplicates(found.handlers.map((x) => ({ key: `event handler ${x.def.name}`, file: x.file })));
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
 * What applying a schedule would do (the server adds zoneId, nextRunTime and times), and what to
 * send: pausing is an operator's act, so a file that does not say `paused` keeps a schedule
 * someone paused paused (a save without it would resume it).
 */
async function planSchedule(
  client: BatonClient,
  def: WorkflowSchedule,
): Promise<{ change: Change; send: WorkflowSchedule }> {
  const stored = await client.getSchedule(def.name);
  if (!stored) return { change: 'created', send: def };
  const send: WorkflowSchedule =
    def.paused === undefined && stored.paused === true
      ? {
          ...def,
          paused: true,
          ...(stored.pausedReason !== undefined && { pausedReason: stored.pausedReason }),
        }
      : def;
  return { change: covers(stored, def) ? 'unchanged' : 'updated', send };
}

function planHandler(stored: EventHandler[], def: EventHandler): Change {
  const current = stored.find((h) => h.name === def.name);
  return !current ? 'created' : covers(current, def) ? 'unchanged' : 'updated';
}

/**
 * Looks at everything first, then changes: new task definitions in one registration, edited
 * ones one by one, then every new or edited workflow in one all-or-nothing PUT (so a workflow
 * and the sub-workflow it names go in together, and a refused one changes no workflow), then
 * schedules and event handlers, which start the workflows registered before them.
 */
async function apply(client: BatonClient, found: Found, dryRun: boolean): Promise<Applied[]> {
  const applied: Applied[] = [];
  const taskPlans = await Promise.all(found.taskDefs.map(({ def }) => planTaskDef(client, def)));
  const flowPlans = await Promise.all(found.workflows.map(({ def }) => planWorkflow(client, def)));
  const schedulePlans = await Promise.all(found.schedules.map(({ def }) => planSchedule(client, def)));
  const storedHandlers = found.handlers.length > 0 ? await client.listEventHandlers() : [];
  const handlerPlans = found.handlers.map(({ def }) => planHandler(storedHandlers, def));
  found.taskDefs.forEach(({ def, file }, i) =>
    applied.push({ kind: 'taskdef', name: def.name, change: taskPlans[i]!, file }),
  );
  found.workflows.forEach(({ def, file }, i) => {
    const { change, version } = flowPlans[i]!;
    applied.push({ kind: 'workflow', name: def.name, version, change, file });
  });
  found.schedules.forEach(({ def, file }, i) =>
    applied.push({ kind: 'schedule', name: def.name, change: schedulePlans[i]!.change, file }),
  );
  found.handlers.forEach(({ def, file }, i) =>
    applied.push({ kind: 'eventHandler', name: def.name, change: handlerPlans[i]!, file }),
  );
  if (dryRun) return applied;
  // Task definitions first: a workflow's worker tasks must name registered types.
  const created = found.taskDefs.filter((_, i) => taskPlans[i] === 'created');
  if (created.length > 0)
    await inFiles(created, true, () => client.registerTaskDefs(created.map((t) => t.def)));
  for (const [i, t] of found.taskDefs.entries())
    if (taskPlans[i] === 'updated') await inFiles([t], false, () => client.updateTaskDef(t.def));
  const flows = found.workflows
    .map((source, i) => ({ source, plan: flowPlans[i]! }))
    .filter(({ plan }) => plan.change !== 'unchanged');
  if (flows.length > 0)
    await inFiles(
      flows.map((f) => f.source),
      true,
      () =>
        client.putWorkflowDefs(flows.map(({ source, plan }) => ({ ...source.def, version: plan.version }))),
    );
  // Schedules and handlers last: they name workflows, which now exist.
  for (const [i, plan] of schedulePlans.entries())
    if (plan.change !== 'unchanged')
      await inFiles([found.schedules[i]!], false, () => client.saveSchedule(plan.send));
  for (const [i, h] of found.handlers.entries()) {
    if (handlerPlans[i] === 'created') await inFiles([h], false, () => client.addEventHandler(h.def));
    else if (handlerPlans[i] === 'updated') await inFiles([h], false, () => client.updateEventHandler(h.def));
  }
  return applied;
}

export function applyCommand(program: Command): void {
  program
    .command('apply')
    .description(
      'register task definitions, workflows, then schedules and event handlers from JSON or YAML files; says what changed',
    )
    .requiredOption('-f, --file <paths...>', 'files or directories (every .json, .yaml, .yml inside)')
    .option('--dry-run', 'say what would change without changing anything')
    .action(async (opts: { file: string[]; dryRun?: boolean }, cmd: Command) => {
      const globals = cmd.optsWithGlobals<GlobalOptions>();
      const client = clientFrom(globals);
      const files = definitionFiles(opts.file);
      const found = collect(files);
      const total =
        found.taskDefs.length + found.workflows.length + found.schedules.length + found.handlers.length;
      if (total === 0) {
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
          `${mark[a.change]} ${KIND_LABEL[a.kind]} ${a.name}${a.version !== undefined ? ` v${a.version}` : ''}  ${paint(a.file, 'grey')}`,
        );
      }
      const count = (c: Change) => applied.filter((a) => a.change === c).length;
      print(
        `${opts.dryRun ? 'would apply' : 'applied'}: ${count('created')} created, ${count('updated')} updated, ${count('unchanged')} unchanged`,
      );
    });
}
