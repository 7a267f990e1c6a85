// The scale scenario's results as Markdown, and both files written under bench/results/.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const STEP_RATIO_TARGET = 1.2;
export const OPEN_RSS_TARGET_BYTES = 300 * 2 ** 20;

const ms = (x) => x.toFixed(2);
const mb = (bytes) => (bytes / 2 ** 20).toFixed(0);
const count = (n) => n.toLocaleString('en-US');

export function scaleMarkdown(results) {
  const lines = [`# Scale`, '', `Measured ${results.measuredAt} on ${results.machine}.`, ''];
  const history = results.history;
  if (history) {
    lines.push(
      `## Poll + complete versus stored history (Baton on PostgreSQL)`,
      '',
      `One worker drives ${history.runsPerSize} runs of a ${history.workflow.steps}-step linear workflow one step at a time ` +
        `(update-v2 completes a step and hands out the next), on a fresh server driven through ` +
        `${history.warmupRunsPerSize} runs first. Per step: wall ms, and CPU ms of the server ` +
        `process and of its PostgreSQL backends (CPU time is what a busy machine disturbs least), ` +
        `the median of ${history.sizes[0]?.blocks?.length ?? 1} blocks of the measured steps; ` +
        `load is the 1-minute load average as the measurement began.`,
      '',
      '| finished runs stored | task rows | step mean ms | p50 ms | p99 ms | server CPU ms | PostgreSQL CPU ms | start mean ms | load |',
      '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...history.sizes.map(
        (s) =>
          `| ${count(s.finishedRuns)} | ${count(s.taskRows)} | ${ms(s.step.mean)} | ${ms(s.step.p50)} | ${ms(s.step.p99)} | ` +
          `${ms(s.serverCpuMsPerStep)} | ${ms(s.postgresCpuMsPerStep)} | ${ms(s.start.mean)} | ${s.loadAverage.toFixed(1)} |`,
      ),
      '',
      `Largest / smallest: step mean ${history.ratio.stepMean.toFixed(2)}, p50 ${history.ratio.stepP50.toFixed(2)}, ` +
        `server + PostgreSQL CPU ${history.ratio.cpu.toFixed(2)} (target ≤ ${STEP_RATIO_TARGET}).`,
      '',
      `History grown in SQL (cloning, vacuuming as it grows) from ${history.templates} runs finished through the API: ` +
        history.sizes
          .map(
            (s) =>
              `${count(s.size)} in ${s.seedSeconds.toFixed(0)} s + analyze ${s.analyzeSeconds.toFixed(0)} s`,
          )
          .join(', ') +
        `; part A took ${history.seconds.toFixed(0)} s.`,
      '',
    );
  }
  const opens = [results.openRuns, results.openRunsSqlite].filter((o) => o !== undefined);
  if (opens.length > 0) {
    const first = opens[0];
    lines.push(
      `## Memory with open runs`,
      '',
      '| store | open runs | starts/s | RSS MB | peak RSS MB | idle RSS MB | poll p50 ms |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...opens.map(
        (open) =>
          `| ${open.store ?? 'postgres'} | ${count(open.openRuns)} | ${open.startsPerSecond.toFixed(0)} | ${mb(open.rssBytes)} | ` +
          `${mb(open.peakRssBytes)} | ${mb(open.idleRssBytes)} | ${ms(open.poll.p50)} |`,
      ),
      '',
      `Started ${first.concurrency} at a time; RSS read ${first.settleMs / 1000} s after the last start ` +
        `(target ≤ ${mb(OPEN_RSS_TARGET_BYTES)} MB); part B took ` +
        `${opens.map((o) => o.seconds.toFixed(0)).join(' + ')} s.`,
      '',
    );
  }
  lines.push(`Whole scenario: ${results.seconds.toFixed(0)} s.`, '');
  return lines.join('\n');
}

/** Writes scale.json and scale.md into `dir`; answers the Markdown. */
export function writeScaleResults(results, dir) {
  mkdirSync(dir, { recursive: true });
  const markdown = scaleMarkdown(results);
  writeFileSync(join(dir, 'scale.json'), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(join(dir, 'scale.md'), markdown);
  return markdown;
}
