import { isTerminalTaskStatus } from '@baton/protocol';
import type { TaskRecord, Workflow, WorkflowTask } from '@baton/sdk';

import { duration, paint, statusColour } from './output.js';

/** One node of a run's tree: a definition step, its latest attempt (if reached) and its children. */
export interface TreeNode {
  ref: string;
  type: string;
  /** Every attempt (and loop iteration) of this step, oldest first. */
  attempts: TaskRecord[];
  children: TreeNode[];
  /** A label for a grouping line (a fork branch, a switch case) that is not a task. */
  group?: string;
}

/**
 * The run's tasks arranged as its definition nests them (fork branches, switch cases, loop
 * bodies); tasks the definition does not name (dynamic forks) follow at the end.
 */
export function buildTree(run: Workflow): TreeNode[] {
  const byRef = new Map<string, TaskRecord[]>();
  for (const task of [...run.tasks].sort((a, b) => a.seq - b.seq)) {
    const ref = task.referenceTaskName.replace(/__\d+$/, '');
    byRef.set(ref, [...(byRef.get(ref) ?? []), task]);
  }
  const used = new Set<string>();
  const nodes = (defs: WorkflowTask[] | undefined): TreeNode[] =>
    (defs ?? []).map((def) => {
      const attempts = byRef.get(def.taskReferenceName) ?? [];
      used.add(def.taskReferenceName);
      return { ref: def.taskReferenceName, type: def.type ?? 'SIMPLE', attempts, children: childrenOf(def) };
    });
  const childrenOf = (def: WorkflowTask): TreeNode[] => {
    if (def.forkTasks) {
      return def.forkTasks.map((branch, i) => ({
        ref: '',
        type: '',
        attempts: [],
        group: `branch ${i + 1}`,
        children: nodes(branch),
      }));
    }
    if (def.decisionCases || def.defaultCase) {
      const cases = Object.entries(def.decisionCases ?? {}).map(([name, tasks]) => ({ name, tasks }));
      cases.push({ name: 'default', tasks: def.defaultCase ?? [] });
      // Only the branches that ran: the others would be noise.
      return cases
        .map(({ name, tasks }) => ({
          ref: '',
          type: '',
          attempts: [],
          group: `case ${name}`,
          children: nodes(tasks),
        }))
        .filter((group) => reached(group));
    }
    if (def.loopOver) return nodes(def.loopOver);
    return [];
  };
  const tree = nodes(run.workflowDefinition?.tasks);
  for (const [ref, attempts] of byRef) {
    if (!used.has(ref)) tree.push({ ref, type: attempts[0]?.taskType ?? '', attempts, children: [] });
  }
  return tree;
}

function reached(node: TreeNode): boolean {
  return node.attempts.length > 0 || node.children.some(reached);
}

/** Ended steps and all steps known so far (reached or still ahead), for a progress bar. */
export function progress(tree: TreeNode[]): { ended: number; total: number } {
  let ended = 0;
  let total = 0;
  const walk = (list: TreeNode[]): void => {
    for (const node of list) {
      if (node.group === undefined) {
        total += 1;
        const last = node.attempts.at(-1);
        if (last && isTerminalTaskStatus(last.status)) ended += 1;
      }
      walk(node.children);
    }
  };
  walk(tree);
  return { ended, total };
}

const ICONS: Record<string, string> = {
  COMPLETED: '✔',
  COMPLETED_WITH_ERRORS: '✔',
  FAILED: '✖',
  FAILED_WITH_TERMINAL_ERROR: '✖',
  TIMED_OUT: '✖',
  CANCELED: '⊘',
  SKIPPED: '⊘',
  IN_PROGRESS: '●',
  SCHEDULED: '◌',
};

/** Why a task is where it is: why it waits, why it failed, where its child run is. */
export function detailOf(task: TaskRecord): string {
  if (task.waitingFor) return task.waitingFor.message;
  if (task.reasonForIncompletion && !['COMPLETED', 'SKIPPED'].includes(task.status))
    return task.reasonForIncompletion;
  if (task.subWorkflowId) return `child run ${task.subWorkflowId}`;
  return '';
}

/** The tree as indented lines: icon, ref, type, status, attempts, time, and why. */
export function renderTree(tree: TreeNode[], now: number, colour: boolean): string[] {
  const lines: string[] = [];
  const walk = (list: TreeNode[], indent: string): void => {
    for (const node of list) {
      if (node.group !== undefined) {
        lines.push(`${indent}${paint(`┊ ${node.group}`, 'grey', colour)}`);
        walk(node.children, `${indent}  `);
        continue;
      }
      const last = node.attempts.at(-1);
      if (!last) {
        lines.push(`${indent}${paint(`○ ${node.ref}`, 'grey', colour)} ${paint(node.type, 'grey', colour)}`);
      } else {
        const status = paint(last.status, statusColour(last.status), colour);
        const icon = paint(ICONS[last.status] ?? '•', statusColour(last.status), colour);
        const tries = countsOf(node, last);
        const started = last.startTime > 0 ? last.startTime : last.scheduledTime;
        const took = started > 0 ? duration((last.endTime > 0 ? last.endTime : now) - started) : '';
        const why = detailOf(last);
        const iteration =
          last.referenceTaskName !== node.ref
            ? ` (iteration ${last.referenceTaskName.slice(node.ref.length + 2)})`
            : '';
        lines.push(
          `${indent}${icon} ${paint(node.ref, 'bold', colour)}${iteration} ${paint(node.type, 'grey', colour)} ${status}${tries} ${paint(took, 'grey', colour)}${why ? ` — ${why}` : ''}`,
        );
      }
      walk(node.children, `${indent}  `);
    }
  };
  walk(tree, '');
  return lines;
}

/**
 * What the `×n` after a step counts, said: ` ×3 iterations` (a loop body), ` ×2 attempts` (tries
 * of its latest iteration, or of a step outside a loop), both when both are more than one.
 */
export function countsOf(node: TreeNode, last: TaskRecord): string {
  const iterations = new Set(node.attempts.map((t) => t.referenceTaskName)).size;
  const attempts = node.attempts.filter((t) => t.referenceTaskName === last.referenceTaskName).length;
  const parts: string[] = [];
  if (iterations > 1) parts.push(`×${iterations} iterations`);
  if (attempts > 1) parts.push(`×${attempts} attempts`);
  return parts.length > 0 ? ` ${parts.join(', ')}` : '';
}

/** A text progress bar: [██████░░░░] 3/5. */
export function progressBar(ended: number, total: number, width = 24): string {
  const share = total === 0 ? 0 : Math.min(1, ended / total);
  const full = Math.round(share * width);
  return `[${'█'.repeat(full)}${'░'.repeat(width - full)}] ${ended}/${total}`;
}
