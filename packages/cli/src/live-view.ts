import type { BatonClient, Workflow } from '@baton/sdk';

import { duration, paint, statusColour } from './output.js';
import { buildTree, detailOf, progress, progressBar, renderTree } from './run-tree.js';

const ENDED = new Set(['COMPLETED', 'FAILED', 'TIMED_OUT', 'TERMINATED']);

export interface WatchOptions {
  /** Redraw in place (a terminal) or print one line per change (a pipe, a log). */
  live: boolean;
  colour: boolean;
  intervalMs?: number;
  /** Give up waiting after this long (the run goes on). */
  timeoutMs?: number;
  out?: NodeJS.WriteStream;
}

/**
 * Follows a run until it ends. On a terminal the view is redrawn in place: a progress bar, each
 * task's state, and why the run waits. Elsewhere each change is one line, so a CI log reads
 * top to bottom. Answers the run as it ended (or as it was when the wait gave up).
 */
export async function watchRun(
  client: BatonClient,
  workflowId: string,
  options: WatchOptions,
): Promise<Workflow> {
  const out = options.out ?? process.stdout;
  const interval = options.intervalMs ?? 250;
  const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
  let drawn = 0;
  const seen = new Map<string, string>();
  let lastRunLine = '';
  for (;;) {
    const run = await client.getWorkflow(workflowId);
    const now = Date.now();
    if (options.live) {
      const frame = liveFrame(run, now, options.colour);
      // Move up over the last frame and clear it, then draw the new one.
      out.write(`${drawn > 0 ? `\u001b[${drawn}F\u001b[0J` : ''}${frame.join('\n')}\n`);
      drawn = frame.length;
    } else {
      for (const line of changes(run, seen)) out.write(`${line}\n`);
      const runLine = `${run.workflowName} ${run.workflowId} ${run.status}`;
      if (runLine !== lastRunLine && ENDED.has(run.status)) out.write(`${runLine}\n`);
      lastRunLine = runLine;
    }
    if (ENDED.has(run.status) || now >= deadline) return run;
    await new Promise((r) => setTimeout(r, interval));
  }
}

function liveFrame(run: Workflow, now: number, colour: boolean): string[] {
  const tree = buildTree(run);
  const { ended, total } = progress(tree);
  const started = run.startTime || run.createTime;
  const took = duration((run.endTime > 0 ? run.endTime : now) - started);
  const lines = [
    `${paint(run.workflowName, 'bold', colour)} ${run.workflowId}  ${paint(run.status, statusColour(run.status), colour)}  ${progressBar(ended, total)}  ${took}`,
    ...renderTree(tree, now, colour).map((l) => `  ${l}`),
  ];
  for (const wait of run.waitingFor ?? []) {
    lines.push(
      paint(
        `  why it waits: ${wait.referenceTaskName ? `${wait.referenceTaskName}: ` : ''}${wait.message.replace(/^waiting: /, '')}`,
        'yellow',
        colour,
      ),
    );
  }
  return lines;
}

/** One line per task whose status (or reason to wait) changed since the last look. */
function changes(run: Workflow, seen: Map<string, string>): string[] {
  const lines: string[] = [];
  for (const task of [...run.tasks].sort((a, b) => a.seq - b.seq)) {
    const why = detailOf(task);
    const key = `${task.status}|${why}`;
    if (seen.get(task.taskId) === key) continue;
    seen.set(task.taskId, key);
    lines.push(`${task.referenceTaskName} ${task.status}${why ? ` — ${why}` : ''}`);
  }
  return lines;
}
