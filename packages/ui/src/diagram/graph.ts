import { taskKindInfo, type DiagramShape } from '@baton/protocol';

import type { TaskRecord, WorkflowDef, WorkflowTask } from '../api/types';

/**
 * Turns a definition (and, for a run, its tasks) into the boxes and arrows of the diagram.
 * Pure: no layout, no React. Big runs stay drawable because a node stands for a definition
 * task, not for each execution: a loop of 1,000 iterations is still one box per body task
 * ("iteration 1000"), and a fork with more branches than MAX_BRANCHES becomes one summary box.
 * How a kind is drawn is its `shape` in protocol's TASK_KIND_INFO, so a new kind of a known
 * shape needs nothing here.
 */

export const MAX_BRANCHES = 24;

export interface NodeRun {
  /** The latest attempt (of the latest iteration). */
  latest: TaskRecord;
  attempts: number;
  iterations: number;
}

export interface DiagramNode {
  id: string;
  kind: string;
  label: string;
  ref: string;
  /** Definition node this box was drawn from; absent for start/end and summaries. */
  task?: WorkflowTask;
  run?: NodeRun;
  /** Shown under the label: a loop's iteration, a join's wait, a summary's counts. */
  detail?: string;
  /** Summary of many branches: status → count. */
  counts?: Record<string, number>;
  /** The refs a summary box stands for. */
  members?: string[];
  mocked?: boolean;
  terminal?: 'start' | 'end';
}

export interface DiagramEdge {
  id: string;
  source: string;
  target: string;
  label?: string;
  /** The branch a switch took, or the path a run went along. */
  taken?: boolean;
  /** The loop's way back to its start. */
  back?: boolean;
}

export interface DiagramGraph {
  nodes: DiagramNode[];
  edges: DiagramEdge[];
}

interface Build {
  nodes: DiagramNode[];
  edges: DiagramEdge[];
  byDefRef: Map<string, TaskRecord[]>;
  mocked: ReadonlySet<string>;
  ids: Set<string>;
}

type Entry = { id: string; label?: string; taken?: boolean };

function groupTasks(tasks: readonly TaskRecord[]): Map<string, TaskRecord[]> {
  const out = new Map<string, TaskRecord[]>();
  for (const t of tasks) {
    const ref =
      typeof t.workflowTask?.taskReferenceName === 'string'
        ? t.workflowTask.taskReferenceName
        : t.referenceTaskName;
    const list = out.get(ref);
    if (list) list.push(t);
    else out.set(ref, [t]);
  }
  return out;
}

function runOf(list: readonly TaskRecord[] | undefined): NodeRun | undefined {
  if (!list || list.length === 0) return undefined;
  let latest = list[0]!;
  let iterations = 0;
  for (const t of list) {
    if (t.seq > latest.seq) latest = t;
    if (t.iteration > iterations) iterations = t.iteration;
  }
  return { latest, attempts: list.length, iterations };
}

function kindOf(task: WorkflowTask): string {
  return (task.type ?? 'SIMPLE').toUpperCase();
}

/** How a box of this kind is drawn; a type that is no known kind is a worker task, one step. */
export function shapeOf(kind: string): DiagramShape {
  return taskKindInfo(kind)?.shape ?? 'step';
}

function uniqueId(b: Build, ref: string): string {
  let id = ref;
  for (let n = 2; b.ids.has(id); n++) id = `${ref}#${n}`;
  b.ids.add(id);
  return id;
}

function connect(b: Build, entries: readonly Entry[], target: string): void {
  for (const e of entries) {
    b.edges.push({
      id: `${e.id}->${target}#${b.edges.length}`,
      source: e.id,
      target,
      ...(e.label !== undefined && { label: e.label }),
      ...(e.taken && { taken: true }),
    });
  }
}

function statusCounts(tasks: readonly TaskRecord[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const t of tasks) counts[t.status] = (counts[t.status] ?? 0) + 1;
  return counts;
}

function countsText(counts: Record<string, number>): string {
  return Object.entries(counts)
    .sort((a, b) => b[1] - a[1])
    .map(([s, n]) => `${n} ${s.toLowerCase().replace(/_/g, ' ')}`)
    .join(', ');
}

/** The case a SWITCH / DECISION run took, from its output. */
function selectedCase(run: NodeRun | undefined): string | undefined {
  const out = run?.latest.outputData;
  if (!out) return undefined;
  const selected = out.selectedCase;
  if (typeof selected === 'string') return selected;
  const results = out.evaluationResult;
  const first = Array.isArray(results) ? results[0] : undefined;
  if (typeof first === 'string' || typeof first === 'number' || typeof first === 'boolean')
    return String(first);
  return undefined;
}

function addNode(b: Build, task: WorkflowTask): DiagramNode {
  const ref = task.taskReferenceName;
  const run = runOf(b.byDefRef.get(ref));
  const node: DiagramNode = {
    id: uniqueId(b, ref),
    kind: kindOf(task),
    label: task.name && task.name !== ref ? task.name : ref,
    ref,
    task,
    ...(run && { run }),
    ...(b.mocked.has(ref) && { mocked: true }),
  };
  b.nodes.push(node);
  return node;
}

/** Branch boxes for a dynamic fork: one per forked task, or one summary when there are many. */
function dynamicBranches(b: Build, fork: DiagramNode, forkTasks: TaskRecord[] | undefined): Entry[] {
  const forkTask = forkTasks?.[forkTasks.length - 1];
  const refs =
    forkTask && Array.isArray(forkTask.inputData.forkedTasks)
      ? forkTask.inputData.forkedTasks.map(String)
      : [];
  if (refs.length === 0) return [{ id: fork.id }];
  if (refs.length > MAX_BRANCHES) {
    const tasks = refs.flatMap((r) => b.byDefRef.get(r) ?? []);
    const counts = statusCounts(tasks.filter((t) => !t.retried));
    const id = uniqueId(b, `${fork.ref}:branches`);
    b.nodes.push({
      id,
      kind: 'BRANCHES',
      label: `${refs.length} branches`,
      ref: id,
      detail: countsText(counts),
      counts,
      members: refs,
    });
    connect(b, [{ id: fork.id }], id);
    return [{ id }];
  }
  return refs.map((ref) => {
    const list = b.byDefRef.get(ref);
    const run = runOf(list);
    const first = list?.[0];
    const id = uniqueId(b, ref);
    b.nodes.push({
      id,
      kind: first?.taskType ?? 'SIMPLE',
      label: ref,
      ref,
      ...(first && { task: first.workflowTask }),
      ...(run && { run }),
    });
    connect(b, [{ id: fork.id }], id);
    return { id };
  });
}

function buildSequence(b: Build, tasks: readonly WorkflowTask[], entries: Entry[]): Entry[] {
  let current = entries;
  for (const task of tasks) {
    const node = addNode(b, task);
    connect(b, current, node.id);
    current = [{ id: node.id }];
    switch (shapeOf(node.kind)) {
      case 'fork': {
        const branches = task.forkTasks ?? [];
        if (branches.length > MAX_BRANCHES) {
          const refs = branches.flatMap((br) => br.map((t) => t.taskReferenceName));
          const counts = statusCounts(
            refs.flatMap((r) => (b.byDefRef.get(r) ?? []).filter((t) => !t.retried)),
          );
          const id = uniqueId(b, `${node.ref}:branches`);
          b.nodes.push({
            id,
            kind: 'BRANCHES',
            label: `${branches.length} branches`,
            ref: id,
            detail: countsText(counts),
            counts,
            members: refs,
          });
          connect(b, current, id);
          current = [{ id }];
        } else if (branches.length > 0) {
          current = branches.flatMap((br) => buildSequence(b, br, [{ id: node.id }]));
        }
        break;
      }
      case 'dynamic-fork':
        current = dynamicBranches(b, node, b.byDefRef.get(node.ref));
        break;
      case 'cases': {
        const chosen = selectedCase(node.run);
        const ended = node.run && node.run.latest.status === 'COMPLETED';
        const cases = Object.entries(task.decisionCases ?? {});
        const exits: Entry[] = [];
        for (const [value, branch] of cases) {
          const taken = ended && chosen === value;
          exits.push(...buildSequence(b, branch, [{ id: node.id, label: value, taken }]));
        }
        const defaultTaken = ended && !cases.some(([value]) => value === chosen);
        exits.push(
          ...buildSequence(b, task.defaultCase ?? [], [
            { id: node.id, label: 'default', taken: defaultTaken },
          ]),
        );
        current = exits;
        break;
      }
      case 'loop': {
        const iterations = node.run?.latest.outputData.iteration;
        const n = typeof iterations === 'number' ? iterations : node.run?.iterations;
        if (n) node.detail = `iteration ${n}`;
        const body = task.loopOver ?? [];
        if (body.length > 0) {
          // Drawn as loop → body → what follows, with a dashed way back from the body's end.
          const exits = buildSequence(b, body, [{ id: node.id }]);
          current = exits;
          for (const e of exits) {
            b.edges.push({
              id: `${e.id}->${node.id}#loop${b.edges.length}`,
              source: e.id,
              target: node.id,
              back: true,
              label: n ? `×${n}` : 'loop',
            });
          }
        }
        break;
      }
      case 'join': {
        const waiting = node.run?.latest.waitingFor?.waitingOn;
        if (waiting && waiting.length > 0) node.detail = `waiting on ${waiting.length}`;
        break;
      }
      case 'end':
        current = [];
        break;
      case 'step':
        break;
    }
  }
  return current;
}

export function buildGraph(
  def: WorkflowDef,
  tasks: readonly TaskRecord[] = [],
  opts: { mocked?: ReadonlySet<string>; runStatus?: string } = {},
): DiagramGraph {
  const b: Build = {
    nodes: [],
    edges: [],
    byDefRef: groupTasks(tasks),
    mocked: opts.mocked ?? new Set(),
    ids: new Set(),
  };
  b.ids.add('__start');
  b.ids.add('__end');
  b.nodes.push({ id: '__start', kind: 'START', label: 'start', ref: '__start', terminal: 'start' });
  const exits = buildSequence(b, Array.isArray(def.tasks) ? def.tasks : [], [{ id: '__start' }]);
  b.nodes.push({
    id: '__end',
    kind: 'END',
    label: opts.runStatus === 'COMPLETED' ? 'completed' : 'end',
    ref: '__end',
    terminal: 'end',
  });
  connect(b, exits, '__end');
  return { nodes: b.nodes, edges: b.edges };
}
