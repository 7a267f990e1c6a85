import { BatonApiError, BatonConnectionError, type BatonClient, type Workflow } from '@baton/sdk';

import { duration, paint, statusColour, visibleLength } from './output.js';
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
    const run = await readRun(client, workflowId, process.stderr);
    const now = Date.now();
    if (options.live) {
      const frame = fitToScreen(
        liveFrame(run, now, options.colour),
        out.columns || 80,
        out.rows || 24,
        run.workflowId,
      );
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

/**
 * Keeps a frame within the terminal: a frame taller than the screen or with wrapped lines could
 * not be redrawn in place (the cursor cannot move above the top). Long lines are cut, and a tall
 * tree keeps its header and its latest lines.
 */
export function fitToScreen(frame: string[], columns: number, rows: number, workflowId: string): string[] {
  let lines = frame;
  const room = Math.max(4, rows - 1);
  if (lines.length > room) {
    const hidden = lines.length - room + 1;
    lines = [lines[0] ?? '', `  … ${hidden} more (baton show ${workflowId})`, ...lines.slice(1 + hidden)];
  }
  return lines.map((line) => truncate(line, Math.max(10, columns - 1)));
}

/** Cuts a line to `width` visible characters, leaving colour codes whole. */
function truncate(line: string, width: number): string {
  let visible = 0;
  let out = '';
  for (let i = 0; i < line.length;) {
    // eslint-disable-next-line no-control-regex
    const escape = /^\u001b\[[0-9;]*m/.exec(line.slice(i));
    if (escape) {
      out += escape[0];
      i += escape[0].length;
      continue;
    }
    const char = String.fromCodePoint(line.codePointAt(i) ?? 32);
    if (visible === width - 1 && visibleLength(line.slice(i)) > 1) return `${out}…\u001b[0m`;
    out += char;
    visible += 1;
    i += char.length;
  }
  return out;
}

/**
 * Whether a read failed because the server is away or cannot serve for now: not reachable (a
 * restart, a deploy), or reachable and answering a retryable 503 (a node starting, or one whose
 * database is away). Either way the run goes on, and a later read may succeed.
 */
function serverAway(raw: unknown): raw is Error {
  return (
    raw instanceof BatonConnectionError ||
    (raw instanceof BatonApiError && raw.status === 503 && raw.retryable)
  );
}

/** How long a watch rides out a server it cannot reach (a restart, a deploy) before giving up. */
const OUTAGE_TOLERANCE_MS = 60_000;

/** Reads the run, waiting out a short outage of the server (the run goes on without us). */
async function readRun(
  client: BatonClient,
  workflowId: string,
  err: NodeJS.WritableStream,
): Promise<Workflow> {
  const giveUpAt = Date.now() + OUTAGE_TOLERANCE_MS;
  let said = false;
  for (let delay = 250; ; delay = Math.min(delay * 2, 5000)) {
    try {
      const run = await client.getWorkflow(workflowId);
      if (said) err.write('reached the server again\n');
      return run;
    } catch (raw) {
      if (!serverAway(raw) || Date.now() + delay > giveUpAt) throw raw;
      if (!said) err.write(`${raw.message}; retrying for up to ${OUTAGE_TOLERANCE_MS / 1000} s\n`);
      said = true;
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}
