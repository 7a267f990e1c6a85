// The benchmark's report, computed from the passes' results: each system's rates, hand-off
// latencies and memory, Baton's ratios to the others, the targets Baton is held to, and the
// Markdown that shows them. Pure: it reads and writes nothing.
import { formatBytes, formatMb, formatMs, formatPercent, formatRate, formatRatio } from './format.mjs';
import { quantile } from './stats.mjs';
import { BATON_PG, BATON_PG_2_NODES, BATON_SQLITE, nameOf } from './systems-catalog.mjs';

/**
 * The targets of the third performance round. Every one but two is a ratio to another system
 * in the same run: the machines this bench runs on differ up to twice in speed from one another
 * and from hour to hour, and a ratio moves far less than a figure. The two absolute ones are a
 * tail latency and bytes on disk, which do not scale with the processor.
 */
export const TARGETS = {
  sqliteOverPg: 2,
  twoNodesOverOne: 1.6,
  lightLoadP99Ms: 10,
  storedBytesPerStep: 1024,
};

/** The peer Baton-PG is to match (steps/s, CPU a step, light-load p50), and the one it is to lead. */
const MATCH_PEER = 'graphile-worker';
const LEAD_PEER = 'dbos';

/**
 * One pass's BENCH_RESULT without its samples (the raw hand-off latencies would make the
 * results file megabytes), with the rates and latency percentiles the report uses.
 */
export function summarizePass(result) {
  const { handoffMs = [], ...rest } = result;
  const rate = (count) => (result.seconds > 0 ? count / result.seconds : null);
  const cpuMs = Array.isArray(result.cpu) ? result.cpu.reduce((sum, part) => sum + part.ms, 0) : null;
  const pick = (q) => (handoffMs.length > 0 ? quantile(handoffMs, q) : null);
  return {
    status: 'ok',
    ...rest,
    stepsPerSecond: rate(result.steps),
    runsPerSecond: rate(result.runsCompleted),
    // Every process of the system over the measured interval (see cpu-meter.mjs), per step.
    cpuMsPerStep: cpuMs !== null && result.steps > 0 ? cpuMs / result.steps : null,
    handoff: {
      count: handoffMs.length,
      p50: pick(0.5),
      p90: pick(0.9),
      p99: pick(0.99),
      max: handoffMs.length > 0 ? handoffMs.reduce((a, b) => Math.max(a, b)) : null,
    },
  };
}

const ok = (pass) => pass?.status === 'ok';
const stepsPerSecond = (system) => (ok(system?.throughput) ? system.throughput.stepsPerSecond : null);
const measured = (value) => value !== null && value !== undefined && Number.isFinite(value) && value > 0;

/** A system's label as it reported it, else the catalogue's name. */
export function labelOf(system) {
  return (
    (ok(system.throughput) && system.throughput.label) ||
    (ok(system.latency) && system.latency.label) ||
    nameOf(system.id)
  );
}

/** Peak RSS per process name over both passes (the same process may peak in either). */
export function peakRss(system) {
  const peaks = new Map();
  for (const pass of [system.throughput, system.latency]) {
    if (!ok(pass)) continue;
    for (const { name, peakRssBytes } of pass.processes ?? []) {
      peaks.set(name, Math.max(peaks.get(name) ?? 0, peakRssBytes ?? 0));
    }
  }
  return [...peaks].map(([name, peakRssBytes]) => ({ name, peakRssBytes }));
}

/**
 * Baton on PostgreSQL's steps/s divided by each system's: above 1 Baton is faster. For the
 * ceiling the same quotient reads as the share of the database's bare commit rate Baton
 * reaches. Also embedded SQLite ÷ Baton-PG, the gain of running embedded.
 */
export function compare(systems) {
  const pg = stepsPerSecond(systems.find((s) => s.id === BATON_PG));
  const sqlite = stepsPerSecond(systems.find((s) => s.id === BATON_SQLITE));
  const ceiling = systems.find((s) => s.kind === 'ceiling');
  const ratio = (a, b) => (measured(a) && measured(b) ? a / b : null);
  return {
    batonPgStepsPerSecond: pg,
    batonPgOver: Object.fromEntries(systems.map((s) => [s.id, ratio(pg, stepsPerSecond(s))])),
    sqliteOverBatonPg: ratio(sqlite, pg),
    twoNodesOverOne: ratio(stepsPerSecond(systems.find((s) => s.id === BATON_PG_2_NODES)), pg),
    batonPgShareOfCeiling: ceiling ? ratio(pg, stepsPerSecond(ceiling)) : null,
  };
}

/** Each target with `status` 'met', 'not met' or 'not measured' and the figures behind it. */
export function targets(systems) {
  const byId = (id) => systems.find((s) => s.id === id);
  const pgSystem = byId(BATON_PG);
  const pg = stepsPerSecond(pgSystem);
  const pgCpu = throughputCpu(pgSystem);
  const pgLight = lightHandoff(pgSystem);
  const matchPeer = byId(MATCH_PEER);
  const leadPeer = byId(LEAD_PEER);
  const matchName = matchPeer ? labelOf(matchPeer) : MATCH_PEER;
  const leadName = leadPeer ? labelOf(leadPeer) : LEAD_PEER;
  const list = [];

  list.push(
    judged(`Baton-PG steps/s ≥ ${matchName}'s`, [
      comparison(
        pg,
        stepsPerSecond(matchPeer),
        (a, b) => a >= b,
        (a, b) => `${formatRate(a)} vs ${formatRate(b)} steps/s`,
      ),
    ]),
  );
  list.push(
    judged(`Baton-PG CPU per step (all processes) ≤ ${matchName}'s`, [
      comparison(
        pgCpu,
        throughputCpu(matchPeer),
        (a, b) => a <= b,
        (a, b) => `${formatMs(a)} vs ${formatMs(b)} ms`,
      ),
    ]),
  );
  list.push(
    judged(`Baton-PG ahead of ${leadName} in steps/s, CPU per step and light-load hand-off p50`, [
      comparison(
        pg,
        stepsPerSecond(leadPeer),
        (a, b) => a > b,
        (a, b) => `steps/s ${formatRate(a)} vs ${formatRate(b)}`,
      ),
      comparison(
        pgCpu,
        throughputCpu(leadPeer),
        (a, b) => a < b,
        (a, b) => `CPU ${formatMs(a)} vs ${formatMs(b)} ms`,
      ),
      comparison(
        pgLight?.p50,
        lightHandoff(leadPeer)?.p50,
        (a, b) => a < b,
        (a, b) => `p50 ${formatMs(a)} vs ${formatMs(b)} ms`,
      ),
    ]),
  );

  const sqlite = stepsPerSecond(byId(BATON_SQLITE));
  list.push(
    judged(`Baton-SQLite steps/s ≥ ${formatRatio(TARGETS.sqliteOverPg)} Baton-PG's`, [
      comparison(
        sqlite,
        pg,
        (a, b) => a / b >= TARGETS.sqliteOverPg,
        (a, b) => `${formatRatio(a / b)}: ${formatRate(a)} vs ${formatRate(b)} steps/s`,
      ),
    ]),
  );

  // The target holds until the machine's CPU is spent: the cores each kept busy say how near.
  const twoNodes = byId(BATON_PG_2_NODES);
  const busy = [coresBusy(twoNodes), coresBusy(pgSystem)];
  list.push(
    judged(`2 Baton nodes on one PostgreSQL ≥ ${formatRatio(TARGETS.twoNodesOverOne)} one node's steps/s`, [
      comparison(
        stepsPerSecond(twoNodes),
        pg,
        (a, b) => a / b >= TARGETS.twoNodesOverOne,
        (a, b) =>
          `${formatRatio(a / b)}: ${formatRate(a)} vs ${formatRate(b)} steps/s` +
          (busy.every(measured)
            ? `; cores busy (all processes) ${busy.map((c) => c.toFixed(2)).join(' vs ')}`
            : ''),
      ),
    ]),
  );

  // Judged on the live rows: the bench's PostgreSQL runs no autovacuum, so what a pass leaves
  // also holds every dead row version, which a server whose vacuum keeps up does not keep.
  for (const id of [BATON_PG, BATON_SQLITE]) {
    const system = byId(id);
    const storage = ok(system?.throughput) ? system.throughput.storage : undefined;
    const live = storage?.liveBytesPerStep;
    list.push(
      judged(
        `${id === BATON_PG ? 'Baton-PG' : 'Baton-SQLite'} stores a finished step in ≤ 1 KB (live rows)`,
        [
          comparison(
            live,
            TARGETS.storedBytesPerStep,
            (a, b) => a <= b,
            (a) =>
              `${formatBytes(a)} bytes a step` +
              (measured(storage?.bytesPerStep)
                ? `, ${formatBytes(storage.bytesPerStep)} as the pass left them`
                : ''),
          ),
        ],
      ),
    );
  }

  list.push(
    judged(`Baton-PG light-load hand-off p50 ≤ ${matchName}'s and p99 ≤ ${TARGETS.lightLoadP99Ms} ms`, [
      comparison(
        pgLight?.p50,
        lightHandoff(matchPeer)?.p50,
        (a, b) => a <= b,
        (a, b) => `p50 ${formatMs(a)} vs ${formatMs(b)} ms`,
      ),
      comparison(
        pgLight?.p99,
        TARGETS.lightLoadP99Ms,
        (a, b) => a <= b,
        (a) => `p99 ${formatMs(a)} ms (${pgLight.count} hand-offs)`,
      ),
    ]),
  );
  return list;
}

/** A system's CPU a step over its throughput pass, or null. */
function throughputCpu(system) {
  return ok(system?.throughput) ? system.throughput.cpuMsPerStep : null;
}

/** How many cores a system's processes kept busy over its throughput pass, or null. */
function coresBusy(system) {
  const cpu = throughputCpu(system);
  const rate = stepsPerSecond(system);
  return measured(cpu) && measured(rate) ? (cpu * rate) / 1000 : null;
}

/** A system's light-load hand-off percentiles, or undefined when it has none. */
function lightHandoff(system) {
  const handoff = ok(system?.latency) ? system.latency.handoff : undefined;
  return handoff && handoff.count > 0 ? handoff : undefined;
}

/** One figure held against another: measured only when both are, `holds` the verdict. */
function comparison(figure, against, holds, describe) {
  if (!measured(figure) || !measured(against)) return { measured: false };
  return { measured: true, holds: holds(figure, against), detail: describe(figure, against) };
}

/**
 * A target made of one or more comparisons: not met as soon as a measured one fails, met when
 * every one was measured and holds, otherwise not measured; the detail lists what was measured.
 */
function judged(target, comparisons) {
  const done = comparisons.filter((c) => c.measured);
  const status = done.some((c) => !c.holds)
    ? 'not met'
    : done.length === comparisons.length
      ? 'met'
      : 'not measured';
  return { target, status, detail: done.map((c) => c.detail).join(', ') };
}

/** Table cells hold one line without pipes; errors are cut to their first line. */
function cell(text) {
  const line = String(text).split('\n')[0].replace(/\|/g, '\\|').trim();
  return line.length > 140 ? `${line.slice(0, 139)}…` : line;
}

/** A failed throughput pass shows its error under steps/s once, not again here. */
function latencyCell(pass, { showFailure = true } = {}) {
  if (pass?.status === 'failed' && showFailure) return cell(`failed: ${pass.error}`);
  if (!ok(pass) || pass.handoff.count === 0) return '—';
  return `${formatMs(pass.handoff.p50)} / ${formatMs(pass.handoff.p99)}`;
}

function ratioCell(system, comparison) {
  const ratio = comparison.batonPgOver[system.id];
  if (system.id === BATON_PG) return ok(system.throughput) ? '1.00×' : '—';
  if (system.kind === 'ceiling')
    return ratio === null ? '—' : `${formatRatio(ratio)} (${formatPercent(ratio)} of ceiling)`;
  return formatRatio(ratio);
}

const SHORT_PART = {
  'Baton server': 'server',
  'PostgreSQL backends': 'PG',
  'harness (workers)': 'harness',
  'Redis server': 'Redis',
};

/** CPU ms per step in a pass, and what each kind of process spent of it. */
function cpuCell(pass) {
  if (!ok(pass) || !measured(pass.cpuMsPerStep)) return '—';
  const parts = (pass.cpu ?? [])
    .filter((part) => part.ms > 0)
    .map((part) => `${SHORT_PART[part.name] ?? part.name} ${formatMs(part.ms / pass.steps)}`);
  return `${formatMs(pass.cpuMsPerStep)}${parts.length > 1 ? ` (${parts.join(', ')})` : ''}`;
}

/** What the pass's runs added to the store, per finished step; — where it was not measured. */
function storageCell(pass) {
  if (!ok(pass) || !measured(pass.storage?.bytesPerStep)) return '—';
  const live = pass.storage.liveBytesPerStep;
  return `${formatBytes(pass.storage.bytesPerStep)}${measured(live) ? ` (live ${formatBytes(live)})` : ''}`;
}

/** The comparison table alone (what docs/benchmarks.md carries), with its footnotes. */
export function renderTable(systems) {
  const comparison = compare(systems);
  const rows = [
    '| system | steps/s | runs/s | CPU ms / step | CPU ms / step, light load | hand-off p50 / p99, light load (ms) | hand-off p50 / p99, under load (ms) | stored bytes / step | peak RSS (MB) | Baton-PG ÷ system (steps/s) |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |',
  ];
  for (const system of systems) {
    const through = system.throughput;
    const ceiling = system.kind === 'ceiling';
    const name = cell(labelOf(system)) + (ceiling ? ' †' : '');
    const rss = peakRss(system)
      .map(({ name: process, peakRssBytes }) => `${process} ${formatMb(peakRssBytes)}`)
      .join(', ');
    const rate = ok(through)
      ? formatRate(through.stepsPerSecond)
      : cell(`failed: ${through?.error ?? 'not run'}`);
    rows.push(
      `| ${[
        system.kind === 'baton' ? `**${name}**` : name,
        rate,
        ok(through) && !ceiling ? formatRate(through.runsPerSecond) : '—',
        cpuCell(through),
        cpuCell(system.latency),
        latencyCell(system.latency),
        latencyCell(through, { showFailure: false }),
        storageCell(through),
        rss || '—',
        ratioCell(system, comparison),
      ].join(' | ')} |`,
    );
  }
  const notes = [];
  if (systems.some((s) => ok(s.throughput) && measured(s.throughput.cpuMsPerStep))) {
    notes.push(
      'CPU ms / step: user + system CPU of every process of the system over the throughput pass (and, in its own column, over the light-load pass), divided by its steps: the harness (the workers, and the whole engine where it runs in-process), the Baton server, the PostgreSQL backends connected to its database, the Redis server. At light load nothing is shared between steps, so each costs more.',
    );
  }
  if (systems.some((s) => ok(s.throughput) && measured(s.throughput.storage?.bytesPerStep))) {
    notes.push(
      'Stored bytes / step: what the throughput pass added to the store, divided by its finished steps: on PostgreSQL pg_total_relation_size of every table (heap, indexes, TOAST), on SQLite the pages in use (WAL included); — for a system that keeps no history of finished steps. In brackets, the same counting live rows only (PostgreSQL: after VACUUM FULL of every table; SQLite: a VACUUM INTO copy): the server here runs no autovacuum, so the first figure also holds every dead row version a pass left.',
    );
  }
  if (systems.some((s) => s.kind === 'ceiling')) {
    notes.push(
      '† Not a workflow system: single-row INSERT commits on the same PostgreSQL, its steps are commits and its hand-off is the latency of one commit.',
    );
  }
  if (comparison.sqliteOverBatonPg !== null) {
    notes.push(`Embedded SQLite ÷ Baton-PG (steps/s): ${formatRatio(comparison.sqliteOverBatonPg)}.`);
  }
  if (comparison.twoNodesOverOne !== null) {
    notes.push(`2 Baton nodes ÷ one node (steps/s): ${formatRatio(comparison.twoNodesOverOne)}.`);
  }
  return [...rows, ...(notes.length > 0 ? ['', ...notes] : [])].join('\n');
}

function describeMachine(machine) {
  const gib = (machine.totalMemoryBytes / 1024 ** 3).toFixed(1);
  return `${machine.cpuCount} × ${machine.cpuModel}, ${gib} GiB RAM, ${machine.platform}; Node ${machine.node}, PostgreSQL ${machine.postgres}, Redis ${machine.redis}`;
}

/** The whole results.md: header, table, targets, how each system ran, what did not run. */
export function renderMarkdown(results) {
  const { options, machine, systems, skipped = [] } = results;
  const lines = [
    '# Baton benchmark',
    '',
    options.shape === 'branching'
      ? `Throughput pass: ${options.runs} runs of the branching workflow (${options.steps} steps: a step, a fork of four branches of two steps and its join, a switch on the run's parity with a step in each case, a last step), ${options.workers} concurrent workers. A step's hand-off runs from the end of the last step it waited for.`
      : `Throughput pass: ${options.runs} runs of a ${options.steps}-step linear workflow, ${options.workers} concurrent workers.`,
    options.skipLatency
      ? 'Light-load pass: skipped.'
      : `Light-load pass: ${options.latencyRuns} runs, one at a time, one worker.`,
    `Machine: ${describeMachine(machine)}.`,
    `Run ${results.startedAt} – ${results.finishedAt}.`,
    '',
    renderTable(systems),
    '',
    '![steps per second](steps-per-second.svg)',
    '',
    '![hand-off latency at light load](handoff-latency.svg)',
    '',
    '## Targets',
    '',
    ...targets(systems).map((t) => `- ${t.target}: **${t.status}**${t.detail ? ` (${t.detail})` : ''}`),
    '',
    '## How each system ran',
    '',
  ];
  for (const system of systems) {
    lines.push(`- **${labelOf(system)}** (\`${system.id}\`)`);
    // The light-load pass repeats most of the throughput pass's notes: only its own are shown.
    const seen = new Set(ok(system.throughput) ? (system.throughput.notes ?? []) : []);
    for (const [name, pass] of [
      ['throughput', system.throughput],
      ['light load', system.latency],
    ]) {
      if (pass?.status === 'failed') lines.push(`  - ${name}: failed: ${String(pass.error).split('\n')[0]}`);
      if (!ok(pass)) continue;
      const notes = name === 'throughput' ? [...seen] : (pass.notes ?? []).filter((n) => !seen.has(n));
      if (notes.length > 0) lines.push(`  - ${name}: ${notes.join('; ')}`);
    }
  }
  if (skipped.length > 0) {
    lines.push('', '## Not run', '', ...skipped.map((s) => `- \`${s.id}\`: ${s.reason}`));
  }
  if (results.scale?.status === 'failed') {
    lines.push('', '## Stored runs', '', `Failed: ${results.scale.error}`);
  } else if (typeof results.scale?.markdown === 'string') {
    lines.push('', results.scale.markdown.trim());
  }
  return `${lines.join('\n')}\n`;
}
